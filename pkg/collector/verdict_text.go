package collector

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Verdict states the shape of the deployment, then the topology and the
// model's answer in words: one line per worker, the runners and processes
// outside the production ceiling, then the cluster, e.g. "worker
// n8n-worker-1: 15 slots, runners 10 → effective 10, runner-bound; ceiling
// 3.3/s at 3.0 s per execution".
func Verdict(r *Report) []string {
	lines := []string{shapeLine(r.Topology)}
	if r.Verdict == nil {
		why := "no n8n worker or regular-mode main found"
		if r.VerdictErr != "" {
			why = "no verdict: " + r.VerdictErr
		}
		return slices.Concat(lines, []string{why}, spreadLines(r), runnerLines(r), roleLines(r), keepLines(r))
	}
	for i, w := range r.Verdict.Workers {
		if w.Spread {
			lines = append(lines, spreadWorkerLine(w, r.Topology.Workers[i]))
		} else {
			lines = append(lines, workerLine(w, r.Topology.Workers[i], r.Verdict.Service))
		}
	}
	lines = append(lines, internalLines(r)...)
	lines = append(lines, roleLines(r)...)
	for _, a := range r.Topology.Unpaired {
		lines = append(lines, unpairedLine(a))
	}
	lines = append(lines, spreadLines(r)...)
	lines = append(lines, clusterLine(r.Verdict, r.Ceiling()))
	if t := typesLine(r); t != "" {
		lines = append(lines, t)
	}
	if b := boundsLine(r); b != "" {
		lines = append(lines, b)
	}
	if w := waitLine(r); w != "" {
		lines = append(lines, w)
	}
	lines = append(lines, runnerLines(r)...)
	lines = append(lines, shutdownLines(r)...)
	lines = append(lines, keepLines(r)...)
	lines = append(lines, threadLines(r)...)
	if s := stealLine(r); s != "" {
		lines = append(lines, s)
	}
	if b := backgroundLine(r); b != "" {
		lines = append(lines, b)
	}
	return lines
}

func workerLine(w capacity.WorkerVerdict, node topology.WorkerNode, s capacity.ServiceTime) string {
	name := hostName(node.Worker)
	if w.Bottleneck == capacity.BottleneckNone {
		return fmt.Sprintf("%s has no runner: %s, so its Code tasks wait N8N_RUNNERS_TASK_REQUEST_TIMEOUT (60 s) and then fail",
			name, noRunnerWhy(node.Worker))
	}
	slots := fmt.Sprintf("%d slots", w.Concurrency)
	if w.Unlimited {
		slots = "no slot limit (N8N_CONCURRENCY_PRODUCTION_LIMIT -1)"
	}
	line := fmt.Sprintf("%s: %s, runners %s → effective %d, %s-bound", name, slots, runnerLimits(node.Runners), w.Effective, w.Bottleneck)
	if s.Known() {
		t := s.Job
		if w.Bottleneck == capacity.BottleneckRunner {
			t = s.Task
		}
		line += fmt.Sprintf("; ceiling %.1f/s at %s per execution", w.Ceiling, seconds(t))
	}
	return line
}

// hostName is "worker <name>", or "main <name> (regular mode)".
func hostName(p topology.Process) string {
	if p.Role == topology.RoleMain && p.Settings.Regular() {
		return "main " + p.InstanceName() + " (regular mode)"
	}
	return string(p.Role) + " " + p.InstanceName()
}

// noRunnerWhy says why nothing serves a process's broker.
func noRunnerWhy(p topology.Process) string {
	if p.Settings.RunnersMode.Known() && p.Settings.RunnersMode.Value == topology.RunnersExternal {
		return "N8N_RUNNERS_MODE is external and no runner reaches its broker"
	}
	return "no runner reaches its broker"
}

// runnerLimits lists the runners' limits, e.g. "10 (internal)+5".
func runnerLimits(as []topology.Attachment) string {
	var limits []string
	for _, a := range as {
		l := fmt.Sprint(a.Runner.Settings.RunnerLimit.Value)
		if a.Internal() {
			l += " (internal)"
		}
		limits = append(limits, l)
	}
	return strings.Join(limits, "+")
}

func unpairedLine(a topology.Attachment) string {
	s := a.Runner.Settings
	switch {
	case !s.Broker.Known():
		return fmt.Sprintf("runner %s reaches no known worker (%s); its slots are not counted", a.Runner.Name, s.Broker.Unknown)
	case a.Target != "":
		return fmt.Sprintf("runner %s dials %s's broker, which runs no execution; its %d slots are not counted", a.Runner.Name, a.Target, s.RunnerLimit.Value)
	}
	return fmt.Sprintf("runner %s reaches no worker (its broker URI points at %s); its %d slots are not counted", a.Runner.Name, s.Broker.Value, s.RunnerLimit.Value)
}

func clusterLine(v *capacity.Verdict, ceiling float64) string {
	slots := fmt.Sprintf("%d worker slots", v.WorkerConcurrency)
	if n := unlimited(v); n > 0 {
		slots += fmt.Sprintf(" plus %s without a slot limit", counted(n, "main"))
	}
	line := fmt.Sprintf("cluster: %s, runner capacity %d → effective %d", slots, v.RunnerCapacity, v.Effective)
	if ceiling > 0 {
		return line + fmt.Sprintf("; ceiling %.1f executions/s (operate at about %.1f/s, 2/3 of it)", ceiling, ceiling*capacity.OperatingFraction)
	}
	return line + "; ceiling unknown until a service time is measured (Redis, n8n metrics, probe) or EXPORTER_SERVICE_TIME is set"
}

func unlimited(v *capacity.Verdict) int {
	n := 0
	for _, w := range v.Workers {
		if w.Unlimited {
			n++
		}
	}
	return n
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
