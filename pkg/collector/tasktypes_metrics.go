package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

var (
	runnerTypeLimit = desc(metricname.RunnerTaskTypeMaxConcurrency, "A runner's or launcher's N8N_RUNNERS_MAX_CONCURRENCY per task type, as its runner of that type gets it.", "runner", "worker", "task_type")
	workerTypeCap   = desc(metricname.WorkerTaskTypeRunnerCapacity, "Sum of the slots of one task type of the runners attached to the worker; a task takes only a slot of its type.", "worker", "task_type")
	workerTypeEff   = desc(metricname.WorkerTaskTypeEffective, "min(worker concurrency, runner capacity of the type): the worker's effective concurrency were every Code task of that type.", "worker", "task_type")
	clusterTypeCeil = desc(metricname.ClusterTaskTypeCeiling, "The slot ceiling were every Code task of that type, with the measured service times.", "task_type")
	typeDescs       = []*prometheus.Desc{runnerTypeLimit, workerTypeCap, workerTypeEff, clusterTypeCeil}
)

// emitTypes publishes each task type's runner limits and slot verdict.
func emitTypes(r *Report, ch chan<- prometheus.Metric) {
	for _, w := range r.Topology.Workers {
		for _, a := range w.Runners {
			for _, p := range a.Runner.Settings.TaskPools {
				knownGauge(ch, runnerTypeLimit, limitOf(a.Runner, p.Type), a.Runner.Name, w.Worker.InstanceName(), string(p.Type))
			}
		}
	}
	for _, tv := range r.Types {
		typ := string(tv.Type)
		for _, w := range tv.Verdict.Workers {
			if !w.Spread {
				gauge(ch, workerTypeCap, float64(w.RunnerCapacity), w.Name, typ)
				gauge(ch, workerTypeEff, float64(w.Effective), w.Name, typ)
			}
		}
		if tv.Verdict.HasCeiling() {
			gauge(ch, clusterTypeCeil, tv.Verdict.Ceiling, typ)
		}
	}
}
