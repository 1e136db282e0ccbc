package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

var (
	resourceDemand     = desc(metricname.ResourceDemand, "Seconds one execution holds one server of the resource: a slot's holding time scaled by the worker's share of executions, or CPU seconds per execution measured over the demand window. Absent while unknown.", "resource")
	resourceServers    = desc(metricname.ResourceServers, "Servers of the resource: slots, or cores (the host's online CPUs less its background; per n8n process EXPORTER_PROCESS_CORES less the steal share, with EXPORTER_PROCESS_CPU=thread times the share of its runnable time its thread ran and never below the cores it ran, or its cgroup quota if lower).", "resource")
	resourceBackground = desc(metricname.ResourceBackground, "Cores of the host busy, over the demand window, with work that is not n8n's: CPU outside n8n's containers and the host's PostgreSQL and Redis processes. cpu:host's servers are the online CPUs less this. Absent while the split is unknown.", "resource")
	resourceAlone      = desc(metricname.ResourceAlone, "Cores of a process's JavaScript thread with the host's cores to itself (EXPORTER_PROCESS_CPU=thread): EXPORTER_PROCESS_CORES less the steal share, or its cgroup quota if lower. n8n_resource_servers is this times the share of its runnable time the thread ran, or the cores it ran if more; the MVA holds the thread at these and queues its wait for a core at cpu:host. Absent where the thread's run delay is not read.", "resource")
	resourceCeiling    = desc(metricname.ResourceCeiling, "Executions per second the resource allows alone: servers / demand. Absent while the demand is unknown.", "resource")
	clusterBinding     = desc(metricname.ClusterBottleneck, "1 for the resource whose ceiling is the cluster's, 0 for the others.", "resource")
	executions         = desc(metricname.ClusterExecutions, "Executions completed, from Bull's job-id counter minus the jobs still queued; in regular mode from n8n's execution histogram count or the probes' completed tasks. The demand window divides CPU time by its increase.")
	executionsFrom     = desc(metricname.ExecutionsSource, "1 for the source of "+metricname.ClusterExecutions+": redis, n8n or probe.", "source")
)

var boundsDescs = []*prometheus.Desc{resourceDemand, resourceServers, resourceBackground, resourceAlone, resourceCeiling, clusterBinding, executions, executionsFrom}

// emitBounds publishes every resource of the bound analysis and the
// execution counter.
func emitBounds(r *Report, ch chan<- prometheus.Metric) {
	if c := r.CPU; c != nil && c.HasCount {
		ch <- prometheus.MustNewConstMetric(executions, prometheus.CounterValue, c.Completed)
		gauge(ch, executionsFrom, 1, c.CountedFrom)
	}
	if r.Bounds == nil {
		return
	}
	if c := r.CPU; c != nil && c.Host.Unknown == "" && c.Cores > 0 {
		gauge(ch, resourceBackground, c.Host.Background, capacity.HostCPU)
	}
	binding := map[string]bool{}
	for _, name := range r.Bounds.Binding {
		binding[name] = true
	}
	for _, res := range r.Bounds.Resources {
		gauge(ch, resourceServers, res.Servers, res.Name)
		if res.Alone > 0 {
			gauge(ch, resourceAlone, res.Alone, res.Name)
		}
		gauge(ch, clusterBinding, b2f(binding[res.Name]), res.Name)
		if res.Known() {
			gauge(ch, resourceDemand, res.Demand, res.Name)
			gauge(ch, resourceCeiling, res.Ceiling, res.Name)
		}
	}
}
