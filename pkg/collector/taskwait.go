package collector

import (
	"fmt"
	"strings"
	"time"
)

// TaskWait is the mean time a Code task's request waited inside its main
// or worker for a runner slot, and how it was measured. n8n's broker
// fails a request that waits N8N_RUNNERS_TASK_REQUEST_TIMEOUT.
type TaskWait struct {
	Time   time.Duration
	Source Source // SourceRedis or SourceN8n
	Note   string
}

// measureTaskWait takes the wait by Little's law on the requests past the
// runner capacity: from Redis's held jobs per worker in queue mode, from
// n8n's histogram in regular mode. It needs one known runner capacity for
// every production worker, as the runner time does.
func (c *Collector) measureTaskWait(r *Report) {
	if len(r.Topology.Workers) == 0 {
		return
	}
	limit, why := runnerCapacity(r.Topology.Workers)
	if why != "" {
		return
	}
	if regularOnly(r.Topology) {
		if w, ok := c.n8n.runnerWait(limit); ok {
			r.Wait = &TaskWait{Time: w, Source: SourceN8n, Note: fmt.Sprintf(
				"Little's law on n8n's execution histogram: the execution-seconds past %d runner slots ÷ the executions", limit)}
		}
		return
	}
	if c.cfg.Sampler == nil {
		return
	}
	if e, ok := c.cfg.Sampler.RunnerWait(); ok {
		r.Wait = &TaskWait{Time: e.JobTime, Source: SourceRedis, Note: fmt.Sprintf(
			"Little's law on the jobs past each worker's %d runner slots: %.2f waiting / %.2f jobs/s over %s",
			limit, e.MeanActive, e.Rate, e.Span.Round(time.Second))}
	}
}

// waitLine says how long task requests wait against the timeout, e.g.
// "task requests wait 4.2 s on average for a runner slot; n8n fails one
// at 60 s (N8N_RUNNERS_TASK_REQUEST_TIMEOUT): …"; "" without a measured
// wait.
func waitLine(r *Report) string {
	if r.Wait == nil {
		return ""
	}
	line := fmt.Sprintf("task requests wait %s on average for a runner slot", seconds(r.Wait.Time))
	if t := timeouts(r); t != "" {
		line += "; n8n fails one at " + t + " (N8N_RUNNERS_TASK_REQUEST_TIMEOUT)"
	}
	return line + ": " + r.Wait.Note
}

// timeouts is the production workers' request timeout, "60 s" when they
// share it, else each worker's, e.g. "60 s on w1, 8 s on w2".
func timeouts(r *Report) string {
	var each []string
	seen := map[int]bool{}
	for _, w := range r.Topology.Workers {
		if t := w.Worker.Settings.TaskRequestTimeout; t.Known() {
			each = append(each, fmt.Sprintf("%d s on %s", t.Value, w.Worker.InstanceName()))
			seen[t.Value] = true
		}
	}
	if len(seen) == 1 {
		for v := range seen {
			return fmt.Sprintf("%d s", v)
		}
	}
	return strings.Join(each, ", ")
}
