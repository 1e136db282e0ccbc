package collector

import (
	"fmt"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// runnerCapacity is every production worker's runner capacity (the sum of
// its runners' limits) when all have the same and it is known, else 0 and
// why; with spread runners no worker's is known. Little's law on the runner slots needs it per worker, and Bull's
// lock names a job's holder by a token, not by the worker.
func runnerCapacity(t topology.Topology) (int, string) {
	if len(t.Spread) > 0 {
		return 0, "runners whose pairing is ambiguous may serve several workers"
	}
	capacity := 0
	for i, w := range t.Workers {
		n := 0
		for _, a := range w.Runners {
			if !a.Runner.Settings.RunnerLimit.Known() {
				return 0, fmt.Sprintf("runner %s's limit is unknown", a.Runner.Name)
			}
			n += a.Runner.Settings.RunnerLimit.Value
		}
		switch {
		case n == 0:
			return 0, fmt.Sprintf("%s has no runner", w.Worker.InstanceName())
		case i > 0 && n != capacity:
			return 0, "the workers' runner capacities differ"
		}
		capacity = n
	}
	return capacity, ""
}

// measureRunnerTime takes the runner-stage time by Little's law on the
// runner slots when no probe measured it: from Redis's held jobs per
// worker in queue mode, from n8n's histogram in regular mode (a Bull
// queue then runs nothing, and Redis holds only an older shape's figure).
func (c *Collector) measureRunnerTime(r *Report) {
	if hasStage(r.Measured, StageTask) || len(r.Topology.Workers) == 0 {
		return
	}
	limit, why := runnerCapacity(r.Topology)
	if why != "" {
		r.Skipped = append(r.Skipped, "task stage by Little's law on the runner slots: "+why)
		return
	}
	if c.cfg.Sampler != nil && !regularOnly(r.Topology) {
		if e, ok := c.cfg.Sampler.RunnerTime(); ok {
			r.Measured = append(r.Measured, ServiceTime{Stage: StageTask, Source: SourceRedis, Time: e.JobTime, Note: runnerNote(e, r)})
			return
		}
	}
	if m, ok := c.n8n.runnerTime(limit); ok {
		r.Measured = append(r.Measured, m)
	}
}

func hasStage(ms []ServiceTime, stage Stage) bool {
	for _, m := range ms {
		if m.Stage == stage {
			return true
		}
	}
	return false
}

// runnerNote says how the Redis runner time was made.
func runnerNote(e queue.Estimate, r *Report) string {
	note := fmt.Sprintf("Little's law on the runner slots: %.2f busy (per worker, min(jobs held, its runner capacity)) / %.2f jobs/s over %s",
		e.MeanActive, e.Rate, e.Span.Round(1e9))
	if age := r.At.Sub(e.At); age > heldAfter {
		note += fmt.Sprintf("; held for %s (no steady run since)", age.Round(1e9))
	}
	return note
}
