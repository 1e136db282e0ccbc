package main

import (
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

// planResult is `loadctl plan --json`. Field names are documented in the
// README; keep them stable.
type planResult struct {
	Cluster     *clusterJSON     `json:"cluster,omitempty"`
	Predictions []predictionJSON `json:"predictions,omitempty"`
	Variations  []*clusterJSON   `json:"variations,omitempty"`
	Sizing      *sizingJSON      `json:"sizing,omitempty"`
	Operating   *operatingJSON   `json:"operating,omitempty"`
	Bounds      *boundsJSON      `json:"bounds,omitempty"` // with --cpu or --latency
	MVA         *mvaJSON         `json:"mva,omitempty"`    // with --cpu or --latency, when a demand is known
}

// boundsJSON is the bound analysis: every resource's ceiling, the lowest
// binding.
type boundsJSON struct {
	Resources   []resourceJSON `json:"resources"`
	Ceiling     *float64       `json:"ceiling_per_second,omitempty"`
	Binding     []string       `json:"binding"`
	SlotCeiling *float64       `json:"slot_ceiling_per_second,omitempty"`
	Cores       float64        `json:"cores,omitempty"`
}

type resourceJSON struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Servers float64  `json:"servers"`
	Demand  *float64 `json:"demand_seconds,omitempty"`     // absent while unknown
	Ceiling *float64 `json:"ceiling_per_second,omitempty"` // absent while unknown or unbounded (demand 0)
	Binding bool     `json:"binding"`
}

// mvaJSON is the closed-loop curve of capacity.Overlapping.
type mvaJSON struct {
	LatencySeconds float64        `json:"latency_seconds"`
	LatencySource  string         `json:"latency_source"`
	KneeVUs        float64        `json:"knee_vus"`
	Points         []mvaPointJSON `json:"points"`
}

type mvaPointJSON struct {
	VUs             int     `json:"vus"`
	ThroughputPerS  float64 `json:"throughput_per_second"`
	BoundPerS       float64 `json:"bound_per_second"`
	ResponseSeconds float64 `json:"response_seconds"`
	LargestQueue    string  `json:"largest_queue"`
	LargestQueueLen float64 `json:"largest_queue_length"`
}

type clusterJSON struct {
	WorkerConcurrency  int      `json:"worker_concurrency"`
	RunnerLimits       []int    `json:"runner_limits"`
	RunnerCapacity     int      `json:"runner_capacity"`
	Effective          int      `json:"effective_concurrency"`
	Bottleneck         string   `json:"bottleneck"`
	JobSeconds         float64  `json:"job_time_seconds,omitempty"`
	TaskSeconds        float64  `json:"task_time_seconds,omitempty"`
	CeilingPerSecond   *float64 `json:"ceiling_per_second,omitempty"`
	CeilingPerMinute   *float64 `json:"ceiling_per_minute,omitempty"`
	WorkerCeilingPerS  *float64 `json:"worker_ceiling_per_second,omitempty"`
	RunnerCeilingPerS  *float64 `json:"runner_ceiling_per_second,omitempty"`
	WorkersWithoutRunr int      `json:"workers_without_runner"`
}

type predictionJSON struct {
	VUs                int     `json:"vus"`
	ThroughputPerS     float64 `json:"throughput_per_second"`
	MeanLatencySeconds float64 `json:"mean_latency_seconds"`
	QueueWait          int     `json:"queue_wait"`
}

type sizingJSON struct {
	TargetPerSecond   float64 `json:"target_per_second"`
	Slots             int     `json:"slots"`
	Pairs             int     `json:"pairs"`
	WorkerConcurrency int     `json:"worker_concurrency"`
	RunnerLimit       int     `json:"runner_limit"`
	MaxRunnerLimit    int     `json:"max_runner_limit"`
	CeilingPerSecond  float64 `json:"ceiling_per_second"`
}

type operatingJSON struct {
	BreakingPoint  float64 `json:"breaking_point"`
	OperatingPoint float64 `json:"operating_point"`
}

func ptr(f float64) *float64 { return &f }

// finite is f, or nil for 0 (unknown) and +Inf (unbounded), which JSON
// cannot carry.
func finite(f float64) *float64 {
	if f <= 0 || math.IsInf(f, 1) {
		return nil
	}
	return ptr(f)
}

func newBoundsJSON(b capacity.Bounds, cores float64) *boundsJSON {
	out := &boundsJSON{Ceiling: finite(b.Ceiling), Binding: b.Binding, SlotCeiling: finite(b.SlotCeiling), Cores: cores}
	if out.Binding == nil {
		out.Binding = []string{}
	}
	for _, r := range b.Resources {
		rj := resourceJSON{Name: r.Name, Kind: string(r.Kind), Servers: r.Servers, Ceiling: finite(r.Ceiling), Binding: r.Binding}
		if r.Known() {
			rj.Demand = ptr(r.Demand)
		}
		out.Resources = append(out.Resources, rj)
	}
	return out
}

func newMVAJSON(curve []capacity.Point, a capacity.Asymptotic, source string) *mvaJSON {
	m := &mvaJSON{LatencySeconds: a.Cycle, LatencySource: source, KneeVUs: a.Knee()}
	for _, p := range curve {
		mp := mvaPointJSON{VUs: p.N, ThroughputPerS: p.Throughput, BoundPerS: a.Throughput(p.N), ResponseSeconds: p.Response, LargestQueue: p.Largest}
		for _, s := range p.Stations {
			if s.Name == p.Largest {
				mp.LargestQueueLen = s.Queue
			}
		}
		m.Points = append(m.Points, mp)
	}
	return m
}

func newClusterJSON(v capacity.Verdict, limits []int) *clusterJSON {
	w := v.Workers[0]
	c := &clusterJSON{
		WorkerConcurrency:  w.Concurrency,
		RunnerLimits:       limits,
		RunnerCapacity:     w.RunnerCapacity,
		Effective:          w.Effective,
		Bottleneck:         string(w.Bottleneck),
		WorkersWithoutRunr: v.WorkersWithoutRunner,
	}
	if v.HasCeiling() {
		c.JobSeconds = v.Service.Job.Seconds()
		c.TaskSeconds = v.Service.Task.Seconds()
		c.CeilingPerSecond = ptr(v.Ceiling)
		c.CeilingPerMinute = ptr(v.Ceiling * 60)
		c.WorkerCeilingPerS = ptr(float64(w.Concurrency) / c.JobSeconds)
		c.RunnerCeilingPerS = ptr(float64(w.RunnerCapacity) / c.TaskSeconds)
	}
	return c
}

func newPredictionJSON(p capacity.Prediction) predictionJSON {
	return predictionJSON{
		VUs:                p.VUs,
		ThroughputPerS:     p.Throughput,
		MeanLatencySeconds: p.MeanLatency.Seconds(),
		QueueWait:          p.QueueWait,
	}
}

func newSizingJSON(s capacity.Sizing, maxPer int) *sizingJSON {
	return &sizingJSON{
		TargetPerSecond:   s.TargetPerSecond,
		Slots:             s.Slots,
		Pairs:             s.Pairs,
		WorkerConcurrency: s.WorkerConcurrency,
		RunnerLimit:       s.RunnerLimit,
		MaxRunnerLimit:    maxPer,
		CeilingPerSecond:  s.Ceiling,
	}
}
