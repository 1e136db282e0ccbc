package collector

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// histPoint is one read of n8n's execution histogram: its sum and count.
type histPoint struct {
	at    time.Time
	sum   float64
	count uint64
}

// histRuns keeps the reads of the last runnerWindow, and holds the newest
// window that completed minRunnerJobs executions.
type histRuns struct {
	window []histPoint
	held   []histPoint
}

// Bounds of the regular-mode runner time's window.
const (
	runnerWindow  = 30 * time.Second
	minRunnerJobs = 10
)

// record adds p; a count that went back (n8n restarted) starts over.
func (h *histRuns) record(p histPoint) {
	if n := len(h.window); n > 0 && p.count < h.window[n-1].count {
		h.window = nil
	}
	h.window = append(h.window, p)
	for len(h.window) > 2 && p.at.Sub(h.window[1].at) >= runnerWindow {
		h.window = h.window[1:]
	}
	if first := h.window[0]; p.count-first.count >= minRunnerJobs {
		h.held = slices.Clone(h.window)
	}
}

// runnerTime is Little's law on the runner slots from the held reads:
// between two reads the executions in flight average Δsum ÷ Δt (their
// durations over the time), of which at most limit hold a runner slot, so
// the busy slot-seconds are min(Δsum, limit·Δt) and the task time is
// their sum ÷ the executions completed. With no job past the limit this
// is the execution mean, an upper bound of the task time.
func (h histRuns) runnerTime(limit int) (time.Duration, float64, time.Duration, bool) {
	var busy, span float64
	var jobs uint64
	for i := 1; i < len(h.held); i++ {
		a, b := h.held[i-1], h.held[i]
		dt := b.at.Sub(a.at).Seconds()
		busy += math.Min(b.sum-a.sum, float64(limit)*dt)
		span += dt
		jobs += b.count - a.count
	}
	if jobs == 0 || busy <= 0 {
		return 0, 0, 0, false
	}
	return time.Duration(busy / float64(jobs) * float64(time.Second)), busy / span, time.Duration(span * float64(time.Second)), true
}

// runnerTime reads the sampler's held window for runners of capacity
// limit: the task stage by Little's law, from n8n's histogram.
func (s *n8nSampler) runnerTime(limit int) (ServiceTime, bool) {
	s.d.mu.Lock()
	runs := s.d.runs
	s.d.mu.Unlock()
	t, busy, span, ok := runs.runnerTime(limit)
	if !ok {
		return ServiceTime{}, false
	}
	return ServiceTime{Stage: StageTask, Source: SourceN8n, Time: t, Note: fmt.Sprintf(
		"Little's law on the runner slots: %.2f busy (min(executions in flight, runner capacity %d)) over %s of n8n's execution histogram",
		busy, limit, span.Round(time.Second))}, true
}
