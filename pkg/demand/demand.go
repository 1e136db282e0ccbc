// Package demand turns counter readings into demands per execution: the
// CPU seconds each resource spends on one execution (the utilization law,
// D = U / X = ΔCPU / Δexecutions), over a sliding window of readings.
//
// A window is the readings of the last Window, stretched back (never
// beyond MaxWindow) until it holds MinExecutions completed executions, so
// that a slow workflow gets a demand too. A demand is published only when
// the window holds at least MinExecutions and neither half of it holds
// more than twice the other's (so that a load starting or stopping midway
// mixes little idle CPU into it); until then the last good estimate is
// held, and before the first there is none. The window slides, so the
// demand is the one measured at the current load: CPU per execution grows
// with contention, and a window taken under load is what the ceiling
// needs. A resource first read inside the window, or whose counter went
// backwards there (a process started or restarted: a runner given a new
// limit), is measured from its newest start, over the executions since,
// once they reach MinExecutions; until then it is unknown, never a
// negative demand. An execution counter that goes backwards (a flushed
// Redis) restarts the whole window. The package does no I/O.
package demand

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/window"
)

// Reading is one sample of the counters, taken together.
type Reading struct {
	At         time.Time
	Executions float64            // executions completed so far, a counter
	CPU        map[string]float64 // resource → CPU seconds used so far; absent = unreadable this time
}

// Estimate is the demand over one window.
type Estimate struct {
	At         time.Time     // the window's last reading
	Span       time.Duration // from its first reading to its last
	Executions float64       // completed in the window
	Demand     map[string]float64
	Unknown    map[string]string // resource → why it has no demand in this window
}

// Rate is the window's throughput, executions per second.
func (e Estimate) Rate() float64 {
	if e.Span <= 0 {
		return 0
	}
	return e.Executions / e.Span.Seconds()
}

// Tracker keeps the window and the newest good estimate. It is not safe
// for concurrent use; the sampler that owns it serialises Add and Last.
type Tracker struct {
	Window time.Duration
	// MaxWindow is how far back a window stretches when the last Window
	// holds fewer than MinExecutions; below Window it is Window.
	MaxWindow     time.Duration
	MinExecutions float64

	readings *window.Window[Reading]
	last     Estimate
	hasLast  bool
	waiting  string // why the current window gives no estimate
}

// Add appends a reading, drops those the window has passed, and
// refreshes the estimate.
func (t *Tracker) Add(r Reading) {
	if t.readings == nil {
		t.readings = window.New(max(t.Window, t.MaxWindow), readingAt, wentBack)
	}
	t.readings.Add(r)
	e, why := t.estimate(t.window())
	t.waiting = why
	if why == "" {
		t.last, t.hasLast = e, true
	}
}

func readingAt(r Reading) time.Time { return r.At }

// wentBack: the execution counter reset, or the clock stepped back.
func wentBack(prev, next Reading) bool {
	return next.Executions < prev.Executions || !next.At.After(prev.At)
}

// Last returns the newest good estimate; ok is false before the first.
// waiting says why the current window gives none ("" when it does).
func (t *Tracker) Last() (e Estimate, ok bool, waiting string) {
	return t.last, t.hasLast, t.waiting
}

// window is the readings the estimate spans: from the newest reading at
// least Window old, or else from the oldest; when that holds fewer than
// MinExecutions, from the newest reading that many executions back, or
// else from the oldest kept.
func (t *Tracker) window() []Reading {
	rs := t.readings.Readings()
	last := rs[len(rs)-1]
	i := sort.Search(len(rs), func(i int) bool { return last.At.Sub(rs[i].At) < t.Window })
	if i = max(i-1, 0); last.Executions-rs[i].Executions < t.MinExecutions {
		i = sort.Search(len(rs), func(i int) bool { return last.Executions-rs[i].Executions < t.MinExecutions })
		i = max(i-1, 0)
	}
	return rs[i:]
}

func (t *Tracker) estimate(w []Reading) (Estimate, string) {
	last := w[len(w)-1]
	e := Estimate{At: last.At}
	e.Executions, e.Span = window.Delta(w, readingAt, func(r Reading) float64 { return r.Executions })
	if e.Executions < t.MinExecutions {
		return e, fmt.Sprintf("%.0f executions in the last %s, fewer than %.0f", e.Executions, e.Span.Round(time.Second), t.MinExecutions)
	}
	if early, late := halves(w); 2*min(early, late) < max(early, late) {
		return e, fmt.Sprintf("the load changed within the window (%.0f then %.0f executions per half)", early, late)
	}
	e.Demand, e.Unknown = map[string]float64{}, map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(last.CPU)) {
		if cpu, execs, why := resource(w, name, t.MinExecutions); why != "" {
			e.Unknown[name] = why
		} else {
			e.Demand[name] = cpu / execs
		}
	}
	return e, ""
}

// halves counts the executions in each half of the window, split at the
// reading nearest its middle. A window whose load started or stopped
// midway mixes idle CPU (timers, garbage collection) into the demand.
func halves(w []Reading) (early, late float64) {
	first, last := w[0], w[len(w)-1]
	mid := first.At.Add(last.At.Sub(first.At) / 2)
	i, _ := slices.BinarySearchFunc(w, mid, func(r Reading, m time.Time) int { return r.At.Compare(m) })
	i = min(i, len(w)-1)
	return w[i].Executions - first.Executions, last.Executions - w[i].Executions
}

// resource is a resource's CPU seconds and the executions completed over
// the part of the window since its newest start (its first reading there,
// or the reading where its counter went backwards), or why it has none.
// A process that started inside the window has its demand as soon as it
// has served minExec executions, not a whole window later: until then the
// ceiling would leave it out. Its start-up CPU counts in that demand, so a
// young demand reads a little high. The last reading holds name.
func resource(w []Reading, name string, minExec float64) (cpu, execs float64, why string) {
	start, prev := -1, 0.0
	for i, r := range w {
		v, ok := r.CPU[name]
		if !ok {
			continue // not yet started, or one failed read: the counter goes on
		}
		if start < 0 || v < prev {
			start = i
		}
		prev = v
	}
	first := w[start]
	if execs = w[len(w)-1].Executions - first.Executions; execs <= 0 || execs < minExec {
		return 0, 0, fmt.Sprintf("read for %.0f executions since it started or restarted, fewer than %.0f", execs, minExec)
	}
	return prev - first.CPU[name], execs, ""
}
