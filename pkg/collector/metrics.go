package collector

import (
	"context"
	"math"
	"slices"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var containerLabels = []string{"container", "role"}

// Names come from pkg/metricname, which dashboards, rules and readers share.
var (
	workerConcurrency = desc(metricname.WorkerConcurrency, "Worker concurrency (N8N_CONCURRENCY_PRODUCTION_LIMIT or --concurrency); for a regular-mode main, its N8N_CONCURRENCY_PRODUCTION_LIMIT, +Inf for none.", "worker")
	runnerLimit       = desc(metricname.RunnerMaxConcurrency, "Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.", "runner", "worker")
	workerRunnerCap   = desc(metricname.WorkerRunnerCapacity, "Sum of the limits of the runners attached to the worker; 0 = worker without runner.", "worker")
	workerEffective   = desc(metricname.WorkerEffectiveConcurrency, "min(worker concurrency, runner capacity).", "worker")
	workerBottleneck  = desc(metricname.WorkerBottleneck, "1 on the side that limits the worker (runner or worker).", "worker", "component")
	workerCeiling     = desc(metricname.WorkerCeiling, "min(concurrency / job time, runner capacity / task time).", "worker")
	workerTaskTimeout = desc(metricname.WorkerTaskRequestTimeout, "N8N_RUNNERS_TASK_REQUEST_TIMEOUT: how long the worker's broker lets a Code task's request wait for a runner slot before the execution fails with \"Task request timed out\".", "worker")
	workerAccept      = desc(metricname.WorkerTaskAcceptTimeout, "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT: how long the worker's broker waits for a runner to accept a task it offered before it cancels the task (a runner's third miss in a row closes it and aborts its tasks).", "worker")
	workerShutdown    = desc(metricname.WorkerShutdownTimeout, "N8N_GRACEFUL_SHUTDOWN_TIMEOUT (a worker's QUEUE_WORKER_TIMEOUT wins): how long a stopping worker or regular-mode main lets its running executions finish; from n8n 2.41 its broker and a worker drain them for 0.8 of it.", "worker")
	runnerShutdown    = desc(metricname.RunnerShutdownTimeout, "N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT (n8n 2.41): how long a stopping runner lets its running tasks finish; an internal runner's comes from the process that launches it.", "runner", "worker")
	workerTaskWait    = desc(metricname.WorkerTaskRequestWait, "Time a Code task's request waits inside the worker for a runner slot: queue mode, the requests its worst worker holds past the runner capacity × task time ÷ capacity, now; regular mode, the mean over the exporter's sample window by Little's law on n8n's execution histogram. Absent until measured.", "worker")
	clusterEffective  = desc(metricname.ClusterEffectiveConcurrency, "Sum of the workers' effective concurrency.")
	clusterCeiling    = desc(metricname.ClusterCeiling, "Executions per second the cluster can complete: the minimum over every resource, slots and CPU alike (the slots alone until a CPU demand is measured).")
	workerRunnerState = desc(metricname.WorkerRunnerState, "1 for the state of the worker's runners, 0 for the others: ok; at_capacity (every runner slot busy and task requests wait); no_runner (no runner serves its broker: none in the topology, or none connected through the probes in front of them); unresponsive (a runner behind a probe holds tasks and has sent nothing for longer than its offer validity plus the task time; needs a probe); ambiguous (none known to serve it, and runners whose pairing is ambiguous may).", "worker", "state")
	runnerPairing     = desc(metricname.RunnerPairing, "1 per runner and the main or worker it is paired with, by what paired it: observed, probe, name, or ambiguous (one series per candidate).", "runner", "worker", "pairing")
	clusterRunnerCap  = desc(metricname.ClusterRunnerCapacity, "Sum of the limits of the runners that serve production executions, spread ones included.")
	clusterEffRange   = desc(metricname.ClusterEffectiveRange, "Lowest and highest cluster effective concurrency over the placements of runners whose pairing is ambiguous.", "bound")
	clusterCeilRange  = desc(metricname.ClusterCeilingRange, "Lowest and highest slot ceiling over the placements of runners whose pairing is ambiguous.", "bound")
	clusterNoRunner   = desc(metricname.ClusterWorkersWithoutRunner, "Workers whose Code tasks no runner serves.")
	serviceTime       = desc(metricname.ServiceTime, "Time one execution holds a slot, per stage (job = worker, task = runner) and source.", "stage", "source")
	serviceTimeUsed   = desc(metricname.ServiceTimeUsed, "1 for the source whose service time the ceiling uses, per stage.", "stage", "source")
	memWorkingSet     = desc(metricname.ContainerWorkingSet, "Usage minus inactive file cache, as docker stats shows.", containerLabels...)
	memRSS            = desc(metricname.ContainerRSS, "Anonymous memory (total_rss on cgroup v1, anon on v2).", containerLabels...)
	memLimit          = desc(metricname.ContainerMemoryLimit, "Memory limit; 0 = unlimited.", containerLabels...)
	oomKilled         = desc(metricname.ContainerOOMKilled, "1 if Docker reports the container OOM-killed or its cgroup counted an OOM kill.", containerLabels...)
	oomKills          = desc(metricname.ContainerOOMKills, "OOM kills counted by the container's cgroup (processes inside, e.g. a runner under a supervisor).", containerLabels...)
	restarts          = desc(metricname.ContainerRestarts, "Docker's restart count for the container.", containerLabels...)
	queueJobs         = desc(metricname.QueueJobs, "Bull jobs per state, read from Redis at scrape time.", "state")
	queuePoolJobs     = desc(metricname.QueuePoolJobs, "Bull jobs per state in each worker pool's queue (jobs-<pool>), read from Redis at scrape time; pool numbers the pools from 1 in the order of their names.", "pool", "state")
	sourceUp          = desc(metricname.SourceUp, "1 if the source answered in this scrape.", "source")
	sourceDuration    = desc(metricname.SourceDuration, "Time the source took in this scrape.", "source")
)

var allDescs = []*prometheus.Desc{workerConcurrency, runnerLimit, workerRunnerCap, workerEffective, workerBottleneck,
	workerCeiling, workerTaskTimeout, workerAccept, workerShutdown, runnerShutdown, workerTaskWait, workerRunnerState, clusterEffective, clusterCeiling, clusterNoRunner, runnerPairing, clusterRunnerCap, clusterEffRange, clusterCeilRange, serviceTime, serviceTimeUsed, memWorkingSet,
	memRSS, memLimit, oomKilled, oomKills, restarts, queueJobs, queuePoolJobs, sourceUp, sourceDuration, containerInfo}

// Describe sends the fixed descriptors.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) { describe(ch) }

// Collect emits a report from the shared gather, bounded by the scrape
// timeout alone: a registry gives Collect no request. The exporter's
// /metrics uses MetricsHandler, which bounds each gather by its request.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.ScrapeTimeout)
	defer cancel()
	if r, err := c.Scrape(ctx); err == nil {
		Emit(r, ch)
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// Emit turns a Report into const metrics.
func Emit(r *Report, ch chan<- prometheus.Metric) {
	emitTopology(r, ch)
	emitVerdict(r, ch)
	emitTypes(r, ch)
	emitContainers(r, ch)
	emitContainerInfo(r, ch)
	for _, m := range r.Measured {
		gauge(ch, serviceTime, m.Time.Seconds(), string(m.Stage), string(m.Source))
	}
	for st, m := range r.Used {
		gauge(ch, serviceTimeUsed, 1, string(st), string(m.Source))
	}
	for state, n := range r.Queue {
		gauge(ch, queueJobs, float64(n), state)
	}
	for _, p := range r.Pools {
		for state, n := range p.Depth {
			gauge(ch, queuePoolJobs, float64(n), p.Label(), state)
		}
	}
	for _, s := range r.Sources {
		gauge(ch, sourceUp, b2f(s.Up), s.Name)
		gauge(ch, sourceDuration, s.Duration.Seconds(), s.Name)
	}
	emitLeftOut(r, ch)
	emitBounds(r, ch)
}

// emitTopology publishes the slots of every main and worker that runs
// production executions (+Inf for no slot limit) and every runner's
// limit; a runner serving no production execution (unpaired, or a
// queue-mode main's) has worker "".
func emitTopology(r *Report, ch chan<- prometheus.Metric) {
	for _, w := range r.Topology.Workers {
		name := w.Worker.InstanceName()
		conc := w.Worker.Settings.Concurrency
		if conc.Known() && conc.Value == topology.NoLimit {
			gauge(ch, workerConcurrency, math.Inf(1), name)
		} else {
			knownGauge(ch, workerConcurrency, conc, name)
		}
		knownGauge(ch, workerTaskTimeout, w.Worker.Settings.TaskRequestTimeout, name)
		knownGauge(ch, workerAccept, w.Worker.Settings.TaskAcceptTimeout, name)
		knownGauge(ch, workerShutdown, w.Worker.Settings.ShutdownTimeout, name)
		if r.Wait != nil {
			gauge(ch, workerTaskWait, r.Wait.Time.Seconds(), name)
		}
		for _, a := range w.Runners {
			knownGauge(ch, runnerLimit, a.Runner.Settings.RunnerLimit, a.Runner.Name, name)
			knownGauge(ch, runnerShutdown, a.Runner.Settings.ShutdownTimeout, a.Runner.Name, name)
		}
	}
	emitPairing(r.Topology, ch)
	for _, w := range r.Runners {
		for _, s := range runnerStates {
			gauge(ch, workerRunnerState, b2f(w.State == s), w.Worker, string(s))
		}
	}
	for _, m := range slices.Concat(r.Topology.Manual, r.Topology.Pooled) {
		for _, a := range m.Runners {
			knownGauge(ch, runnerLimit, a.Runner.Settings.RunnerLimit, a.Runner.Name, "")
		}
	}
	for _, a := range r.Topology.Unpaired {
		knownGauge(ch, runnerLimit, a.Runner.Settings.RunnerLimit, a.Runner.Name, "")
	}
	for _, s := range r.Topology.Spread {
		knownGauge(ch, runnerLimit, s.Runner.Settings.RunnerLimit, s.Runner.Name, "")
	}
}

// emitPairing publishes how each external runner of a main or worker was
// paired, and each candidate of a spread one.
func emitPairing(t topology.Topology, ch chan<- prometheus.Metric) {
	for _, nodes := range t.Hosts() {
		for _, w := range nodes {
			for _, a := range w.Runners {
				if a.Pairing != "" {
					gauge(ch, runnerPairing, 1, a.Runner.Name, w.Worker.InstanceName(), string(a.Pairing))
				}
			}
		}
	}
	for _, s := range t.Spread {
		for _, c := range s.Candidates {
			gauge(ch, runnerPairing, 1, s.Runner.Name, c.InstanceName(), string(s.Pairing))
		}
	}
}

// knownGauge emits a setting the platform could read; an unknown one has
// no series.
func knownGauge(ch chan<- prometheus.Metric, d *prometheus.Desc, s topology.Setting[int], labels ...string) {
	if s.Known() {
		gauge(ch, d, float64(s.Value), labels...)
	}
}

func emitVerdict(r *Report, ch chan<- prometheus.Metric) {
	v := r.Verdict
	if v == nil {
		return
	}
	for _, w := range v.Workers {
		if w.Spread {
			continue // its runners are not known: no figure of its own
		}
		gauge(ch, workerRunnerCap, float64(w.RunnerCapacity), w.Name)
		gauge(ch, workerEffective, float64(w.Effective), w.Name)
		for _, side := range []capacity.Bottleneck{capacity.BottleneckRunner, capacity.BottleneckWorker} {
			gauge(ch, workerBottleneck, b2f(w.Bottleneck == side), w.Name, string(side))
		}
		if v.HasCeiling() {
			gauge(ch, workerCeiling, w.Ceiling, w.Name)
		}
	}
	gauge(ch, clusterEffective, float64(v.Effective))
	gauge(ch, clusterNoRunner, float64(v.WorkersWithoutRunner))
	gauge(ch, clusterRunnerCap, float64(v.RunnerCapacity))
	if g := v.Range; g != nil {
		gauge(ch, clusterEffRange, float64(g.EffectiveLow), "low")
		gauge(ch, clusterEffRange, float64(g.EffectiveHigh), "high")
		if v.HasCeiling() {
			gauge(ch, clusterCeilRange, g.CeilingLow, "low")
			gauge(ch, clusterCeilRange, g.CeilingHigh, "high")
		}
	}
	if c := r.Ceiling(); c > 0 {
		gauge(ch, clusterCeiling, c)
	}
}

func emitContainers(r *Report, ch chan<- prometheus.Metric) {
	for _, ct := range r.Processes {
		l := []string{ct.Name, string(ct.Role)}
		m, hasMem := r.Memory[ct.ID]
		if hasMem {
			gauge(ch, memWorkingSet, float64(m.WorkingSet), l...)
			gauge(ch, memRSS, float64(m.RSS), l...)
			gauge(ch, memLimit, float64(m.Limit), l...)
			ch <- prometheus.MustNewConstMetric(oomKills, prometheus.CounterValue, float64(m.OOMKills), l...)
		} else {
			gauge(ch, memLimit, float64(max(0, ct.State.MemoryLimit)), l...)
		}
		gauge(ch, oomKilled, b2f(ct.State.OOMKilled || m.OOMKills > 0), l...)
		gauge(ch, restarts, float64(ct.State.RestartCount), l...)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
