package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Exporter metric names read here (pkg/collector publishes them).
const (
	mWorkerConcurrency = "n8n_worker_concurrency"
	mRunnerMax         = "n8n_runner_max_concurrency"
	mRunnerCapacity    = "n8n_worker_runner_capacity"
	mWorkerEffective   = "n8n_worker_effective_concurrency"
	mBottleneck        = "n8n_worker_bottleneck"
	mCeiling           = "n8n_cluster_ceiling_executions_per_second"
	mNoRunner          = "n8n_cluster_workers_without_runner"
	mServiceTime       = "n8n_service_time_seconds"
	mServiceTimeUsed   = "n8n_exporter_service_time_used"
	mTasksRunning      = "n8n_runner_tasks_running"
	mTaskDuration      = "n8n_runner_task_duration_seconds"
	mWorkingSet        = "n8n_container_memory_working_set_bytes"
	mMemLimit          = "n8n_container_memory_limit_bytes"
	mOOMKilled         = "n8n_container_oom_killed"
	mOOMKills          = "n8n_container_oom_kills_total"
	mRestarts          = "n8n_container_restarts"
)

// TopologyOf reads the cluster shape from a scrape.
func TopologyOf(s Scrape) Topology {
	t := Topology{WorkerConcurrency: s.Ints(mWorkerConcurrency), RunnerLimits: s.Ints(mRunnerMax), WithoutRunner: []string{}}
	t.Workers = len(t.WorkerConcurrency)
	t.WorkersWithoutRunner = int(s.Sum(mNoRunner))
	for _, x := range s.Series(mRunnerCapacity) {
		if x.Value == 0 {
			t.WithoutRunner = append(t.WithoutRunner, x.Labels["worker"])
		}
	}
	slices.Sort(t.WithoutRunner)
	return t
}

// Matches reports whether t has every part of the wanted shape, and when
// not, what differs.
func (want Shape) Matches(t Topology) (bool, string) {
	var diffs []string
	if want.RunnerLimits != nil && !slices.Equal(sorted(want.RunnerLimits), t.RunnerLimits) {
		diffs = append(diffs, fmt.Sprintf("runner limits %v, want %v", t.RunnerLimits, sorted(want.RunnerLimits)))
	}
	if want.WorkerConcurrency != nil && !slices.Equal(sorted(want.WorkerConcurrency), t.WorkerConcurrency) {
		diffs = append(diffs, fmt.Sprintf("worker concurrency %v, want %v", t.WorkerConcurrency, sorted(want.WorkerConcurrency)))
	}
	if want.Workers != nil && *want.Workers != t.Workers {
		diffs = append(diffs, fmt.Sprintf("%d workers, want %d", t.Workers, *want.Workers))
	}
	if want.WorkersWithoutRunner != nil && *want.WorkersWithoutRunner != t.WorkersWithoutRunner {
		diffs = append(diffs, fmt.Sprintf("%d workers without runner, want %d", t.WorkersWithoutRunner, *want.WorkersWithoutRunner))
	}
	return len(diffs) == 0, strings.Join(diffs, "; ")
}

func sorted(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// PredictionOf reads the exporter's own ceiling, bottleneck and the
// service time it used (the source marked by n8n_exporter_service_time_used,
// not the largest figure).
func PredictionOf(s Scrape) Prediction {
	p := Prediction{Ceiling: s.Sum(mCeiling), Effective: int(s.Sum(mWorkerEffective)), Topology: TopologyOf(s)}
	p.Bottleneck = bottleneck(s)
	used := map[string]string{}
	for _, x := range s.Series(mServiceTimeUsed) {
		if x.Value == 1 {
			used[x.Labels["stage"]] = x.Labels["source"]
		}
	}
	for _, x := range s.Series(mServiceTime) {
		st, src := x.Labels["stage"], x.Labels["source"]
		if used[st] != src {
			continue
		}
		switch st {
		case "job":
			p.JobSeconds, p.JobSource = x.Value, src
		case "task":
			p.TaskSeconds, p.TaskSource = x.Value, src
		}
	}
	if !s.Has(mCeiling) {
		p.Error = "the exporter published no ceiling (no service time yet, or no runner)"
	}
	return p
}

// bottleneck collapses the per-worker flags: one word when the workers
// agree, "worker-1=runner,worker-2=none" when they differ. A worker with
// runner capacity 0 is "none".
func bottleneck(s Scrape) string {
	per := map[string]string{}
	for _, x := range s.Series(mBottleneck) {
		if x.Value == 1 {
			per[x.Labels["worker"]] = x.Labels["component"]
		}
	}
	for _, x := range s.Series(mRunnerCapacity) {
		if x.Value == 0 {
			per[x.Labels["worker"]] = "none"
		}
	}
	kinds := map[string]bool{}
	var parts []string
	for w, b := range per {
		kinds[b] = true
		parts = append(parts, w+"="+b)
	}
	if len(kinds) == 1 {
		for k := range kinds {
			return k
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// forLoad is the closed-loop throughput the model expects at the step the
// measured ceiling came from: min(ceiling, VUs / job time). Open loads and
// unknown job times keep the ceiling.
func (p *Prediction) forLoad(st loadgen.Step) {
	p.ForLoad = p.Ceiling
	if st.VUs <= 0 || p.JobSeconds <= 0 {
		return
	}
	p.ForLoad = min(p.Ceiling, float64(st.VUs)/p.JobSeconds)
}
