package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// TopologyOf reads the cluster shape from a scrape: every runner limit,
// paired or not, and the workers whose runner capacity is 0.
func TopologyOf(s *snapshot.Snapshot) Topology {
	t := Topology{WorkerConcurrency: []int{}, RunnerLimits: []int{}, WithoutRunner: []string{}}
	for _, w := range s.Workers {
		t.WorkerConcurrency = append(t.WorkerConcurrency, w.Concurrency)
		for _, r := range w.Runners {
			t.RunnerLimits = append(t.RunnerLimits, r.Limit)
		}
		if w.Capacity.OK && w.Capacity.Value == 0 {
			t.WithoutRunner = append(t.WithoutRunner, w.Name)
		}
	}
	for _, r := range s.Unpaired {
		t.RunnerLimits = append(t.RunnerLimits, r.Limit)
	}
	slices.Sort(t.WorkerConcurrency)
	slices.Sort(t.RunnerLimits)
	slices.Sort(t.WithoutRunner)
	t.Workers = len(t.WorkerConcurrency)
	t.WorkersWithoutRunner = int(s.Cluster.WorkersWithoutRunner)
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
// not the largest figure). A nil scrape (none answered) predicts nothing.
func PredictionOf(s *snapshot.Snapshot) Prediction {
	if s == nil {
		s = &snapshot.Snapshot{}
	}
	p := Prediction{Topology: TopologyOf(s), Binding: s.Binding()}
	if b, err := s.Bounds(); err == nil {
		p.SlotCeiling = b.SlotCeiling
	}
	md, err := s.Model()
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Effective, p.Bottleneck = md.Effective, md.Bottleneck
	p.JobSeconds, p.JobSource = md.Job.Seconds, md.Job.Source
	p.TaskSeconds, p.TaskSource = md.Task.Seconds, md.Task.Source
	if !md.CeilingPublished {
		p.Error = "the exporter published no ceiling (no service time yet, or no runner)"
		return p
	}
	p.Ceiling = md.Ceiling
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
