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
	mNoRunner          = "n8n_cluster_workers_without_runner"
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
// not the largest figure) through loadgen's reader of the exporter.
func PredictionOf(s Scrape) Prediction {
	p := Prediction{Topology: TopologyOf(s)}
	snap, err := loadgen.ExporterFromFamilies(s)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Effective, p.Bottleneck = snap.Effective, snap.Bottleneck
	p.JobSeconds, p.JobSource = snap.Job.Seconds, snap.Job.Source
	p.TaskSeconds, p.TaskSource = snap.Task.Seconds, snap.Task.Source
	if !snap.CeilingPublished {
		p.Error = "the exporter published no ceiling (no service time yet, or no runner)"
		return p
	}
	p.Ceiling = snap.Ceiling
	return p
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
