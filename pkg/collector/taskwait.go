package collector

import (
	"fmt"
	"strings"
	"time"
)

// TaskWait is the time a Code task's request waits inside its main or
// worker for a runner slot, and how it was measured. n8n's broker
// fails a request that waits N8N_RUNNERS_TASK_REQUEST_TIMEOUT.
type TaskWait struct {
	Time   time.Duration
	Source Source // SourceRedis or SourceN8n
	Note   string
}

// staleWaiting is how old the Redis sampler's newest reading may be for
// the wait read from it.
const staleWaiting = 10 * time.Second

// measureTaskWait takes the wait a task request meets now. Queue mode:
// the Redis sampler's newest reading gives the requests one worker holds
// past its runner capacity c (its worst worker), and a request arriving
// behind q of them waits for q slots to free, at c per task time:
// q × task time ÷ c. Regular mode, where nothing counts the executions in
// flight between completions: the mean over the window of n8n's
// histogram (Window), by Little's law on the execution-seconds past c. Both need
// one known runner capacity for every production worker, as the runner
// time does; run it after evaluate, which picks the task time.
func (c *Collector) measureTaskWait(r *Report) {
	if len(r.Topology.Workers) == 0 {
		return
	}
	limit, why := runnerCapacity(r.Topology)
	if why != "" {
		return
	}
	if regularOnly(r.Topology) {
		if w, span, ok := c.n8n.runnerWait(limit); ok {
			r.Wait = &TaskWait{Time: w, Source: SourceN8n, Note: fmt.Sprintf(
				"the mean over %s of n8n's execution histogram by Little's law: the execution-seconds past %d runner slots ÷ the executions", span.Round(time.Second), limit)}
		}
		return
	}
	task, ok := r.Used[StageTask]
	if c.cfg.Sampler == nil || !ok {
		return
	}
	n, at, ok := c.cfg.Sampler.Waiting()
	if !ok || r.At.Sub(at) > staleWaiting {
		return
	}
	r.Wait = &TaskWait{Time: time.Duration(n) * task.Time / time.Duration(limit), Source: SourceRedis, Note: fmt.Sprintf(
		"%d requests wait behind one worker's %d runner slots (the jobs it holds past them, in Redis), each slot freeing every %s task time",
		n, limit, seconds(task.Time))}
}

// waitLine says how long task requests wait against the timeout, e.g.
// "task requests wait 4.2 s for a runner slot; n8n fails one
// at 60 s (N8N_RUNNERS_TASK_REQUEST_TIMEOUT): …"; "" without a measured
// wait.
func waitLine(r *Report) string {
	if r.Wait == nil {
		return ""
	}
	line := fmt.Sprintf("task requests wait %s for a runner slot", seconds(r.Wait.Time))
	if t := timeouts(r); t != "" {
		line += "; n8n fails one at " + t + " (N8N_RUNNERS_TASK_REQUEST_TIMEOUT)"
	}
	return line + ": " + r.Wait.Note + "; a failure is predicted from it, not counted (" + uncounted + ")"
}

// uncounted says why no timed-out request is counted: n8n emits its
// runner-task-requested event (n8n.runner.task.requested, the event-bus
// metric) once a runner has taken the task, so a request that times out
// waiting for one is in no counter of n8n's (2.23.2 to 2.41.1).
const uncounted = "n8n counts none: its n8n.runner.task.requested event fires only once a runner has taken the task"

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
