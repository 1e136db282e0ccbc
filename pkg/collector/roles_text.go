package collector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// roleLines name the processes outside the production slots and what they
// are to the ceiling: queue-mode mains with the runners of their manual
// executions, pool workers, and webhook processors.
func roleLines(r *Report) []string {
	var out []string
	for _, m := range r.Topology.Manual {
		out = append(out, manualLine(m, cpuName(r, m.Worker)))
	}
	for _, w := range r.Topology.Pooled {
		out = append(out, pooledLine(w))
	}
	out = append(out, poolLines(r)...)
	for _, w := range r.Topology.Webhooks {
		out = append(out, fmt.Sprintf("webhook processor %s: takes webhook requests and queues them; it holds no execution slot, and its CPU (%s) is a resource of every webhook execution",
			w.InstanceName(), cpuName(r, w)))
	}
	return out
}

// cpuName is the CPU resource of n8n process p: its JavaScript thread
// where its container was read apart, else its container.
func cpuName(r *Report, p topology.Process) string {
	if r.CPU != nil && readApart(r.CPU.Split, p) {
		return capacity.ProcessCPU(p.Name, capacity.ProcessN8n)
	}
	return capacity.ContainerCPU(p.Name)
}

// manualLine says what a main that is not its own cluster runs, and that
// neither it nor its runners are in the production slots.
func manualLine(m topology.WorkerNode, cpuName string) string {
	p, s := m.Worker, m.Worker.Settings
	cpu := fmt.Sprintf("; it holds no production execution slot, and its CPU (%s) is a resource of every execution it takes in", cpuName)
	switch {
	case !s.Executions.Known():
		return fmt.Sprintf("main %s: its execution mode is unknown (%s), so it and its runners%s are not counted", p.InstanceName(), s.Executions.Unknown, listed(m.Runners))
	case !s.OffloadManual.Known():
		return fmt.Sprintf("main %s (queue mode): whether it runs manual executions on its runners%s is unknown (%s)", p.InstanceName(), listed(m.Runners), s.OffloadManual.Unknown) + cpu
	case s.OffloadManual.Value:
		line := fmt.Sprintf("main %s (queue mode): OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS is true, so the workers run manual executions too and it runs none", p.InstanceName())
		if len(m.Runners) > 0 {
			line += fmt.Sprintf(" (its runners %s stay idle)", runnerLimits(m.Runners))
		}
		return line + cpu
	case len(m.Runners) == 0:
		return fmt.Sprintf("main %s (queue mode): runs manual executions, but %s: their Code tasks fail after N8N_RUNNERS_TASK_REQUEST_TIMEOUT", p.InstanceName(), noRunnerWhy(p)) + cpu
	}
	return fmt.Sprintf("main %s (queue mode): runs manual executions on its runners %s, which are not in the production ceiling", p.InstanceName(), runnerLimits(m.Runners)) + cpu
}

// pooledLine says that a pool worker serves its pool's queue, which the
// ceiling of the default queue leaves out. The pool's name is not shown.
func pooledLine(w topology.WorkerNode) string {
	return fmt.Sprintf("worker %s: takes its jobs from its worker pool's queue (jobs-<pool>, N8N_WORKER_POOL_NAME), not from jobs: "+
		"its slots, its runners%s and its CPU are left out of this ceiling, which is the default queue's, and its CPU counts as the host's background",
		w.Worker.InstanceName(), listed(w.Runners))
}

// listed is " (10 (internal))", or "" for no runner.
func listed(as []topology.Attachment) string {
	if len(as) == 0 {
		return ""
	}
	return " (" + runnerLimits(as) + ")"
}

// internalLines say, when internal runners serve production executions,
// where their task time comes from, and how the CPU of every container
// with an internal runner is counted.
func internalLines(r *Report) []string {
	var names []string
	var hosts []topology.Process
	for _, nodes := range r.Topology.Hosts() {
		for _, w := range nodes {
			if w.Worker.Settings.LaunchesRunner() {
				hosts = append(hosts, w.Worker)
			}
		}
	}
	for _, w := range r.Topology.Workers {
		for _, a := range w.Runners {
			if a.Internal() {
				names = append(names, a.Runner.Name)
			}
		}
	}
	var out []string
	if len(names) > 0 {
		out = append(out, fmt.Sprintf("%s %s: the child process of its host, where no probe can stand between runner and broker, so the task time is %s",
			plural(len(names), "internal runner"), strings.Join(names, ", "), taskSource(r)))
	}
	if r.CPU != nil {
		out = append(out, splitLines(r, hosts)...)
	}
	return out
}

// splitLines say, for the hosts whose container CPU was read, grouped by
// outcome, whether n8n and its runner were read apart, and if not why and
// what is counted instead.
func splitLines(r *Report, hosts []topology.Process) []string {
	var order []string
	groups := map[string][]topology.Process{}
	for _, p := range hosts {
		why, ok := r.CPU.Split[capacity.ContainerCPU(p.Name)]
		if !ok {
			continue
		}
		if _, seen := groups[why]; !seen {
			order = append(order, why)
		}
		groups[why] = append(groups[why], p)
	}
	var out []string
	for _, why := range order {
		if why == "" {
			out = append(out, apartLine(r, groups[why]))
			continue
		}
		out = append(out, fmt.Sprintf("%s: n8n and its internal runner are two Node processes in one container, not read apart (%s), so the container's total is one resource of %g cores, or its CPU quota if lower",
			hostNames(groups[why]), why, internalHostCores(r.processCores())))
	}
	return out
}

// apartLine says that the hosts' n8n and runner processes are resources
// of their own, and that a quota makes the container one too.
func apartLine(r *Report, hosts []topology.Process) string {
	c, quota := "<container>", false
	if len(hosts) == 1 {
		c = hosts[0].Name
	}
	for _, p := range hosts {
		quota = quota || r.Bounds != nil && slices.ContainsFunc(r.Bounds.Resources, func(b capacity.ResourceBound) bool {
			return b.Name == capacity.ContainerCPU(p.Name)
		})
	}
	line := fmt.Sprintf("%s: n8n and its internal runner are two Node processes, read apart from /proc (each up to %g of a core: %s and %s)",
		hostNames(hosts), r.processCores(), capacity.ProcessCPU(c, capacity.ProcessN8n), capacity.ProcessCPU(c, capacity.ProcessRunner))
	if quota {
		line += fmt.Sprintf("; with a CPU quota the container's total is a resource too (%s, of the quota)", capacity.ContainerCPU(c))
	}
	return line
}

func hostNames(ps []topology.Process) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = hostName(p)
	}
	return strings.Join(names, ", ")
}

// taskSource says where the task time the model uses comes from.
func taskSource(r *Report) string {
	u, ok := r.Used[StageTask]
	switch {
	case !ok:
		return "unknown until a job time is measured"
	case u.Source == SourceProbe:
		return "the probe's, measured on the other runners"
	case u.Source == SourceConfig:
		return "EXPORTER_SERVICE_TIME"
	case u.Note != jobStandsIn:
		return fmt.Sprintf("%s, by Little's law on the runner slots from %s", seconds(u.Time), u.Source)
	}
	return fmt.Sprintf("the job time from %s (%s), which holds the task", u.Source, seconds(u.Time))
}
