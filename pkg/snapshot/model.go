package snapshot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Model is the capacity model a snapshot describes: the cluster and its
// verdict, with the exporter's own published figures where it has them.
type Model struct {
	Cluster          capacity.Cluster
	Verdict          capacity.Verdict
	Ceiling          float64 // executions per second; the exporter's own figure when published
	CeilingPublished bool    // the exporter published its ceiling (else Ceiling is the model's)
	Effective        int
	Bottleneck       string        // "runner", "worker", "none", or per worker when they differ
	Job, Task        ServiceFigure // the per-stage figures Cluster.Service is built from
}

// ServiceFigure is one stage's service time as read, with its source.
type ServiceFigure struct {
	Seconds float64
	Source  string
}

// Model evaluates the snapshot's cluster. Without a worker there is no
// model.
func (s *Snapshot) Model() (Model, error) {
	if len(s.Workers) == 0 {
		return Model{}, fmt.Errorf("exporter metrics: no %s series", metricname.WorkerConcurrency)
	}
	var md Model
	md.Job, md.Task = s.serviceFigures()
	md.Cluster = capacity.Cluster{Service: serviceTime(md.Job, md.Task)}
	for _, w := range s.Workers {
		cw := capacity.Worker{Name: w.Name, Concurrency: w.Concurrency, Unlimited: w.Unlimited}
		for _, r := range w.Runners {
			cw.Runners = append(cw.Runners, capacity.Runner{Name: r.Name, Limit: r.Limit})
		}
		md.Cluster.Workers = append(md.Cluster.Workers, cw)
	}
	v, err := capacity.Evaluate(md.Cluster)
	if err != nil {
		return Model{}, fmt.Errorf("exporter metrics: %w", err)
	}
	md.Verdict, md.Ceiling, md.Effective = v, v.Ceiling, v.Effective
	if c := s.Cluster.Ceiling; c.OK {
		md.Ceiling, md.CeilingPublished = c.Value, true
	}
	if e := s.Cluster.Effective; e.OK {
		md.Effective = int(e.Value)
	}
	md.Bottleneck = s.bottleneck(v)
	return md, nil
}

// serviceFigures takes, per stage, the source the exporter marks as used,
// so the prediction matches the published ceiling; without a mark it takes
// the largest figure, the conservative choice when sources disagree.
func (s *Snapshot) serviceFigures() (job, task ServiceFigure) {
	for _, st := range s.Service {
		v := st.Seconds
		if u, ok := s.Used[st.Stage]; (ok && u != st.Source) || math.IsNaN(v) || v <= 0 {
			continue
		}
		switch {
		case st.Stage == "job" && v > job.Seconds:
			job = ServiceFigure{v, st.Source}
		case st.Stage == "task" && v > task.Seconds:
			task = ServiceFigure{v, st.Source}
		}
	}
	return job, task
}

// serviceTime is the model's input; a stage without a figure leaves the
// service time unknown.
func serviceTime(job, task ServiceFigure) capacity.ServiceTime {
	if job.Seconds <= 0 || task.Seconds <= 0 {
		return capacity.ServiceTime{}
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return capacity.ServiceTime{Job: sec(job.Seconds), Task: sec(task.Seconds)}
}

// bottleneck reads the per-worker flags (a worker without runner, which
// has none set, is "none"); with no flag published it falls back to the
// model. Workers that agree collapse to one word.
func (s *Snapshot) bottleneck(v capacity.Verdict) string {
	per := map[string]string{}
	for _, w := range s.Workers {
		if w.Bottleneck != "" {
			per[w.Name] = w.Bottleneck
		}
	}
	for _, w := range v.Workers {
		if len(per) > 0 && w.Bottleneck == capacity.BottleneckNone {
			per[w.Name] = string(w.Bottleneck)
		}
	}
	if len(per) == 0 {
		for _, w := range v.Workers {
			per[w.Name] = string(w.Bottleneck)
		}
	}
	kinds := map[string]bool{}
	parts := make([]string, 0, len(per))
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
