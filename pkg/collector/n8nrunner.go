package collector

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/window"
)

// histPoint is one read of n8n's execution histogram: its sum and count.
type histPoint struct {
	at    time.Time
	sum   float64
	count uint64
}

// histRuns keeps the reads of the last span (default runnerWindow), and
// holds the newest window that completed minRunnerJobs executions.
type histRuns struct {
	span   time.Duration
	window *window.Window[histPoint]
	held   []histPoint
}

// Bounds of the regular-mode runner time's window.
const (
	runnerWindow  = 30 * time.Second
	minRunnerJobs = 10
)

// record adds p; a count that went back (n8n restarted) starts over.
func (h *histRuns) record(p histPoint) {
	if h.window == nil {
		h.window = window.New(cmp.Or(h.span, runnerWindow), func(p histPoint) time.Time { return p.at },
			func(prev, next histPoint) bool { return next.count < prev.count })
	}
	h.window.Add(p)
	if rs := h.window.Readings(); p.count-rs[0].count >= minRunnerJobs {
		h.held = slices.Clone(rs)
	}
}

// runnerTime is Little's law on the runner slots from the held reads:
// between two reads the executions in flight average Δsum ÷ Δt (their
// durations over the time), of which at most limit hold a runner slot, so
// the busy slot-seconds are min(Δsum, limit·Δt) and the task time is
// their sum ÷ the executions completed. With no job past the limit this
// is the execution mean, an upper bound of the task time.
func (h histRuns) runnerTime(limit int) (time.Duration, float64, time.Duration, bool) {
	s := h.slots(limit)
	if s.jobs == 0 || s.busy <= 0 {
		return 0, 0, 0, false
	}
	return perJob(s.busy, s.jobs), s.busy / s.span, time.Duration(s.span * float64(time.Second)), true
}

// runnerWait is the mean time an execution's task request waited for one
// of limit runner slots: the slot-seconds past the limit,
// Σ max(0, Δsum − limit·Δt), ÷ the executions completed, and the span
// of the reads.
func (h histRuns) runnerWait(limit int) (time.Duration, time.Duration, bool) {
	s := h.slots(limit)
	if s.jobs == 0 {
		return 0, 0, false
	}
	return perJob(s.waiting, s.jobs), time.Duration(s.span * float64(time.Second)), true
}

// slotSeconds splits the held reads' execution-seconds at limit runner
// slots: busy within it, waiting past it.
type slotSeconds struct {
	busy, waiting, span float64
	jobs                uint64
}

func (h histRuns) slots(limit int) slotSeconds {
	var s slotSeconds
	for i := 1; i < len(h.held); i++ {
		a, b := h.held[i-1], h.held[i]
		dt, in := b.at.Sub(a.at).Seconds(), b.sum-a.sum
		s.busy += math.Min(in, float64(limit)*dt)
		s.waiting += math.Max(0, in-float64(limit)*dt)
		s.span += dt
		s.jobs += b.count - a.count
	}
	return s
}

func perJob(seconds float64, jobs uint64) time.Duration {
	return time.Duration(seconds / float64(jobs) * float64(time.Second))
}

// runnerTime reads the sampler's held window for runners of capacity
// limit: the task stage by Little's law, from n8n's histogram.
func (s *n8nSampler) runnerTime(limit int) (ServiceTime, bool) {
	t, busy, span, ok := s.heldRuns().runnerTime(limit)
	if !ok {
		return ServiceTime{}, false
	}
	return ServiceTime{Stage: StageTask, Source: SourceN8n, Time: t, Note: fmt.Sprintf(
		"Little's law on the runner slots: %.2f busy (min(executions in flight, runner capacity %d)) over %s of n8n's execution histogram",
		busy, limit, span.Round(time.Second))}, true
}

// runnerWait reads the sampler's held window for runners of capacity
// limit: the mean wait of a task request for a runner slot, and the span
// it was taken over.
func (s *n8nSampler) runnerWait(limit int) (time.Duration, time.Duration, bool) {
	return s.heldRuns().runnerWait(limit)
}

// heldRuns is the histogram reads the sampler holds (record replaces the
// held slice, never changes it), without its live window.
func (s *n8nSampler) heldRuns() histRuns {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	return histRuns{held: s.d.runs.held}
}
