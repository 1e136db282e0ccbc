package collector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// spreadWorkerLine is a worker that spread runners may serve: its slots,
// and the runners known to serve it.
func spreadWorkerLine(w capacity.WorkerVerdict, node topology.WorkerNode) string {
	known := "none known"
	if len(node.Runners) > 0 {
		known = runnerLimits(node.Runners) + " known"
	}
	return fmt.Sprintf("%s: %d slots, runners %s, and spread runners may serve it: which is not observed", hostName(node.Worker), w.Concurrency, known)
}

// pairExactly is what would pair a spread runner exactly.
const pairExactly = "give the exporter the host's PID namespace (pid: host in Compose, hostPID in Kubernetes) and EXPORTER_PROC_ROOT so it reads the runners' connections, " +
	"or put a broker probe in front of each runner, whose upstream connections name the broker when they end at its own IP " +
	"(Docker's DNS names, a headless Service; not a Service's ClusterIP), or give each runner a broker URI of its own worker"

// spreadLines name each spread runner and its candidates, what its probe
// reported dialling, the range the spread allows, and what would make the
// pairing exact.
func spreadLines(r *Report) []string {
	t := r.Topology
	if len(t.Spread) == 0 {
		return nil
	}
	var lines []string
	for _, s := range t.Spread {
		var cands []string
		for _, c := range s.Candidates {
			cands = append(cands, c.InstanceName())
		}
		lines = append(lines, fmt.Sprintf("runner %s dials %s (by %s), which reaches %s: its %d slots serve one of them, which is not observed",
			s.Runner.Name, s.Runner.Settings.Broker.Value, s.Route(), strings.Join(cands, ", "), s.Runner.Settings.RunnerLimit.Value))
		if line := probeUpstreamLine(t, s.Attachment); line != "" {
			lines = append(lines, line)
		}
	}
	if v := r.Verdict; v != nil && v.Range != nil {
		g := v.Range
		line := fmt.Sprintf("with the spread runners placed any way: effective %d to %d", g.EffectiveLow, g.EffectiveHigh)
		if v.HasCeiling() {
			line += fmt.Sprintf(", slot ceiling %.1f/s to %.1f/s; the cluster's figures are the low ends, which hold whatever the spread", g.CeilingLow, g.CeilingHigh)
		}
		if !g.Exact {
			line += " (bounds: too many placements to try each)"
		}
		lines = append(lines, line)
	}
	why := "the exporter reads no runner's connections here"
	if r.PeersUnread != "" {
		why = "the runners' connections were not read: " + r.PeersUnread
	}
	return append(lines, "to pair them exactly, "+why+"; "+pairExactly)
}

// probeUpstreamLine says what the probe in front of spread runner a
// reported dialling, when it reported anything: peers that are no single
// candidate's own IP and broker port.
func probeUpstreamLine(t topology.Topology, a topology.Attachment) string {
	i := slices.IndexFunc(t.Probes, func(p topology.Process) bool { return p.Name == a.Probe })
	if a.Probe == "" || i < 0 || len(t.Probes[i].Upstreams) == 0 {
		return ""
	}
	var peers []string
	for _, u := range t.Probes[i].Upstreams {
		if s := u.String(); !slices.Contains(peers, s) {
			peers = append(peers, s)
		}
	}
	return fmt.Sprintf("probe %s reports its upstream connections ending at %s, which pick no single candidate by its own IP and broker port (a Service's ClusterIP names no pod)",
		a.Probe, strings.Join(peers, ", "))
}
