package collector

import (
	"fmt"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Verdict states the topology and the model's answer in words, one line
// per worker, then the cluster, e.g. "worker n8n-worker-1: 15 slots,
// runners 10 → effective 10, runner-bound; ceiling 3.3/s at 3.0 s per
// execution".
func Verdict(r *Report) []string {
	var lines []string
	if r.Verdict == nil {
		if r.VerdictErr != "" {
			return []string{"no verdict: " + r.VerdictErr}
		}
		return []string{"no n8n worker found"}
	}
	for i, w := range r.Verdict.Workers {
		lines = append(lines, workerLine(w, r.Topology.Workers[i], r.Verdict.Service))
	}
	for _, a := range r.Topology.Unpaired {
		lines = append(lines, unpairedLine(a))
	}
	lines = append(lines, clusterLine(r.Verdict, r.Ceiling()))
	if b := boundsLine(r); b != "" {
		lines = append(lines, b)
	}
	return lines
}

func workerLine(w capacity.WorkerVerdict, node topology.WorkerNode, s capacity.ServiceTime) string {
	if w.Bottleneck == capacity.BottleneckNone {
		return fmt.Sprintf("worker %s has no runner: its Code tasks wait N8N_RUNNERS_TASK_REQUEST_TIMEOUT (60 s) and then fail", w.Name)
	}
	var limits []string
	for _, a := range node.Runners {
		limits = append(limits, fmt.Sprint(a.Runner.Settings.RunnerLimit.Value))
	}
	line := fmt.Sprintf("worker %s: %d slots, runners %s → effective %d, %s-bound", w.Name, w.Concurrency,
		strings.Join(limits, "+"), w.Effective, w.Bottleneck)
	if s.Known() {
		t := s.Job
		if w.Bottleneck == capacity.BottleneckRunner {
			t = s.Task
		}
		line += fmt.Sprintf("; ceiling %.1f/s at %s per execution", w.Ceiling, seconds(t))
	}
	return line
}

func unpairedLine(a topology.Attachment) string {
	s := a.Runner.Settings
	switch {
	case !s.Broker.Known():
		return fmt.Sprintf("runner %s reaches no known worker (%s); its slots are not counted", a.Runner.Name, s.Broker.Unknown)
	case a.Target != "":
		return fmt.Sprintf("runner %s dials %s's broker, which serves no queue-mode production execution; its %d slots are not counted", a.Runner.Name, a.Target, s.RunnerLimit.Value)
	}
	return fmt.Sprintf("runner %s reaches no worker (its broker URI points at %s); its %d slots are not counted", a.Runner.Name, s.Broker.Value, s.RunnerLimit.Value)
}

func clusterLine(v *capacity.Verdict, ceiling float64) string {
	line := fmt.Sprintf("cluster: %d worker slots, runner capacity %d → effective %d", v.WorkerConcurrency, v.RunnerCapacity, v.Effective)
	if ceiling > 0 {
		return line + fmt.Sprintf("; ceiling %.1f executions/s (operate at about %.1f/s, 2/3 of it)", ceiling, ceiling*capacity.OperatingFraction)
	}
	return line + "; ceiling unknown until a service time is measured (Redis, n8n metrics, probe) or EXPORTER_SERVICE_TIME is set"
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
