package window

import (
	"testing"
	"time"
)

type reading struct {
	at time.Time
	n  float64
}

func at(r reading) time.Time { return r.at }
func n(r reading) float64    { return r.n }

var t0 = time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)

func read(sec float64, count float64) reading {
	return reading{at: t0.Add(time.Duration(sec * float64(time.Second))), n: count}
}

func wentBack(prev, next reading) bool { return next.n < prev.n || !next.at.After(prev.at) }

func counts(w *Window[reading]) []float64 {
	var out []float64
	for _, r := range w.Readings() {
		out = append(out, r.n)
	}
	return out
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The window keeps every reading of the last span and the newest one
// before it: a reading exactly span older than the newest but one goes.
func TestWindowKeepsTheEdgeReading(t *testing.T) {
	w := New(10*time.Second, at, wentBack)
	for i, want := range [][]float64{{0}, {0, 1}, {0, 1, 2}} {
		w.Add(read(float64(5*i), float64(i)))
		if got := counts(w); !equal(got, want) {
			t.Fatalf("after %d readings: %v, want %v", i+1, got, want)
		}
	}
	// At 15 s the reading at 5 s is exactly 10 s old: the one at 0 s, no
	// longer the edge, goes.
	w.Add(read(15, 3))
	if got := counts(w); !equal(got, []float64{1, 2, 3}) {
		t.Errorf("at 15 s: %v, want [1 2 3]", got)
	}
	// Just short of span: nothing goes.
	w.Add(read(19.999, 4))
	if got := counts(w); !equal(got, []float64{1, 2, 3, 4}) {
		t.Errorf("at 19.999 s: %v, want [1 2 3 4]", got)
	}
	// After a long gap the one reading before it stays as the edge.
	w.Add(read(100, 5))
	if got := counts(w); !equal(got, []float64{4, 5}) {
		t.Errorf("after a gap: %v, want [4 5]", got)
	}
}

// A counter that went back, or a clock that did, starts the window over
// with that reading, and Add says so; without back nothing restarts.
func TestWindowRestarts(t *testing.T) {
	w := New(time.Minute, at, wentBack)
	w.Add(read(0, 10))
	if w.Add(read(1, 12)) {
		t.Error("a growing counter restarted the window")
	}
	if !w.Add(read(2, 3)) || !equal(counts(w), []float64{3}) {
		t.Errorf("counter back: %v, want [3] and a restart", counts(w))
	}
	if !w.Add(read(2, 4)) || w.Len() != 1 {
		t.Errorf("clock not later: %v, want one reading and a restart", counts(w))
	}
	plain := New[reading](time.Minute, at, nil)
	plain.Add(read(0, 10))
	if plain.Add(read(1, 3)) || plain.Len() != 2 {
		t.Errorf("nil back restarted: %v", counts(plain))
	}
}

// Delta reads the first and last reading; fewer than two give zero.
func TestDelta(t *testing.T) {
	rs := []reading{read(0, 10), read(2, 11), read(4, 30)}
	if d, span := Delta(rs, at, n); d != 20 || span != 4*time.Second {
		t.Errorf("Delta %v over %v, want 20 over 4s", d, span)
	}
	if d, span := Delta(rs[:1], at, n); d != 0 || span != 0 {
		t.Errorf("one reading: %v over %v", d, span)
	}
}
