// Package window keeps the readings of counters over a sliding time
// window: every reading of the last Span, and the newest one before it,
// where the window starts (so a window of readings a second apart spans
// at least Span once it is full). A reading whose counter went back (a
// restarted process, a flushed Redis) starts the window over. Each
// sampler that turns counters into rates owns one; it is not safe for
// concurrent use. The package does no I/O.
package window

import "time"

// Window holds readings of type T, oldest first.
type Window[T any] struct {
	span time.Duration
	at   func(T) time.Time
	back func(prev, next T) bool
	rs   []T
}

// New is an empty window of span. at gives a reading's time; back reports
// whether next cannot continue from prev (its counter went back, or its
// clock did), nil for never.
func New[T any](span time.Duration, at func(T) time.Time, back func(prev, next T) bool) *Window[T] {
	return &Window[T]{span: span, at: at, back: back}
}

// Add appends r, first dropping every reading when r cannot continue from
// the newest (it reports that), then the readings the window has passed:
// the oldest goes while the one after it is at least span older than r.
func (w *Window[T]) Add(r T) (restarted bool) {
	if n := len(w.rs); n > 0 && w.back != nil && w.back(w.rs[n-1], r) {
		w.rs, restarted = w.rs[:0], true
	}
	w.rs = append(w.rs, r)
	now := w.at(r)
	for len(w.rs) > 1 && now.Sub(w.at(w.rs[1])) >= w.span {
		w.rs = w.rs[1:]
	}
	return restarted
}

// Readings are the window's readings, oldest first. The slice is the
// window's own: read it, do not keep or change it.
func (w *Window[T]) Readings() []T { return w.rs }

// Len is the number of readings held.
func (w *Window[T]) Len() int { return len(w.rs) }

// Delta is f's growth from the first of rs to the last, and the time
// between them; zero for fewer than two readings.
func Delta[T any](rs []T, at func(T) time.Time, f func(T) float64) (float64, time.Duration) {
	if len(rs) < 2 {
		return 0, 0
	}
	first, last := rs[0], rs[len(rs)-1]
	return f(last) - f(first), at(last).Sub(at(first))
}
