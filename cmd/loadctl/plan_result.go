package main

import "github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"

// planResult is `loadctl plan --json`. Field names are documented in the
// README; keep them stable.
type planResult struct {
	Cluster     *clusterJSON     `json:"cluster,omitempty"`
	Predictions []predictionJSON `json:"predictions,omitempty"`
	Variations  []*clusterJSON   `json:"variations,omitempty"`
	Sizing      *sizingJSON      `json:"sizing,omitempty"`
	Operating   *operatingJSON   `json:"operating,omitempty"`
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
