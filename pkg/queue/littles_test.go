package queue

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// steady builds n one-second samples of a queue with `active` jobs in the
// active list and `perSec` arrivals per second.
func steady(n int, active, perSec int64, startID int64) []sample {
	var out []sample
	for i := 0; i < n; i++ {
		out = append(out, sample{at: t0.Add(time.Duration(i) * time.Second), active: active, id: startID + int64(i)*perSec})
	}
	return out
}

func TestLittlesLawSteady(t *testing.T) {
	// 3 jobs always active and 2 arrivals/s: each job holds a slot 1.5 s.
	e, ok := estimate(steady(12, 3, 2, 100))
	if !ok || e.JobTime != 1500*time.Millisecond || e.Jobs != 22 || e.Span != 11*time.Second {
		t.Fatalf("got %+v ok %v", e, ok)
	}
}

func TestLittlesLawTimeWeighted(t *testing.T) {
	s := steady(7, 2, 4, 0)
	s[6].at = s[5].at.Add(4 * time.Second) // one long gap, active 2 → 3
	s[6].active = 3
	// area: 5 s × 2 + 4 s × 2.5 = 20 over 9 s; 24 arrivals in 9 s.
	e, ok := estimate(s)
	want := (20.0 / 9) / (24.0 / 9)
	if !ok || math.Abs(e.JobTime.Seconds()-want) > 1e-6 {
		t.Fatalf("got %v, want %.4f s", e.JobTime, want)
	}
}

// A saturated worker is measured: with every slot busy and jobs waiting,
// Little's law over the jobs in service still holds with the completion
// rate. Under overload more arrive than complete; the arrivals would
// halve the job time here.
func TestLittlesLawMeasuresSaturated(t *testing.T) {
	s := steady(10, 15, 5, 0) // 15 busy, 5 completions/s: 3 s
	for i := range s {
		s[i].wait = 10
		s[i].queued = 25
	}
	e, ok := estimate(s)
	if !ok || e.JobTime != 3*time.Second || e.Rate != 5 {
		t.Fatalf("saturated, steady: got %+v ok %v, want 15 / 5 per s = 3 s", e, ok)
	}
	over := steady(10, 15, 10, 0) // 10 arrivals/s, 5 complete: the wait list grows by 5/s
	for i := range over {
		over[i].wait = int64(5 * i)
		over[i].queued = 15 + int64(5*i)
	}
	if e, ok := estimate(over); !ok || e.JobTime != 3*time.Second {
		t.Fatalf("overloaded: got %+v ok %v, want 3 s from the completions", e, ok)
	}
}

// A backlog draining after a saturated stretch, or a load ramping up, is not
// a steady state: Little's law over it would count jobs that arrived before
// the window. Only the steady part after a ramp is used.
func TestLittlesLawNeedsSteadyState(t *testing.T) {
	drain := steady(12, 6, 2, 0)
	for i, active := range []int64{6, 5, 3, 2, 1, 0, 0} {
		drain = append(drain, sample{at: t0.Add(time.Duration(12+i) * time.Second), active: active, id: 22 + int64(i)})
	}
	if e, ok := estimate(drain); ok {
		t.Errorf("estimated %+v over a draining backlog", e)
	}
	ramp := []sample{{at: t0, active: 0, id: 0}}
	for i, active := range []int64{2, 4, 6} {
		ramp = append(ramp, sample{at: t0.Add(time.Duration(i+1) * time.Second), active: active, id: int64(2 * (i + 1))})
	}
	for i := 4; i < 14; i++ {
		ramp = append(ramp, sample{at: t0.Add(time.Duration(i) * time.Second), active: 6, id: int64(2 * i)})
	}
	e, ok := estimate(ramp)
	if !ok || e.JobTime != 3*time.Second || e.MeanActive != 6 {
		t.Fatalf("after a ramp: got %+v ok %v, want 6 active / 2 per s = 3 s", e, ok)
	}
}

// A worker of 8 slots replaces a killed one whose 5 jobs keep their locks:
// capped at 8 the count looks full from the new worker's first reading,
// while it is still taking its first jobs. The ramp is left out by the
// locks, stale ones included.
func TestLittlesLawRampBesideStaleLocks(t *testing.T) {
	s := []sample{
		{at: t0, active: 8, id: 0}, // 5 stale + 3 new: at the cap
		{at: t0.Add(time.Second), active: 8, over: 5, id: 0},
	}
	for i := 2; i < 14; i++ { // then 8 completions a second
		s = append(s, sample{at: t0.Add(time.Duration(i) * time.Second), active: 8, over: 5, id: int64(8 * (i - 1))})
	}
	e, ok := estimate(s)
	if !ok || e.JobTime != time.Second || e.Span != 12*time.Second {
		t.Fatalf("got %+v ok %v, want 8 jobs / 8 per s = 1 s over the 12 s after the ramp", e, ok)
	}
}

func TestLittlesLawRefusesThinData(t *testing.T) {
	cases := map[string][]sample{
		"empty":        nil,
		"one sample":   steady(1, 1, 1, 0),
		"short span":   steady(4, 1, 5, 0),
		"idle":         steady(20, 0, 0, 7),
		"few arrivals": steady(10, 1, 0, 0),
		// Steady and long enough, but one job more or less in 19 is 5 %.
		"19 completions": steady(20, 1, 1, 0),
	}
	for name, s := range cases {
		if e, ok := estimate(s); ok {
			t.Errorf("%s: estimated %+v", name, e)
		}
	}
}

// A flushed Redis restarts the id counter: only samples after it count.
func TestLittlesLawCounterReset(t *testing.T) {
	s := append(steady(10, 2, 1, 1000), steady(10, 9, 3, 0)...)
	for i := range s {
		s[i].at = t0.Add(time.Duration(i) * time.Second)
	}
	e, ok := estimate(s)
	if !ok || e.JobTime != 3*time.Second {
		t.Fatalf("got %+v ok %v", e, ok)
	}
}

// Runner saturated (gated readings): jobs hold worker slots while waiting
// for a runner slot, so those readings are skipped even though the worker
// has free slots and nothing waits in Redis.
func TestLittlesLawSkipsGated(t *testing.T) {
	s := append(steady(10, 6, 3, 0), steady(10, 30, 3, 30)...) // 2 s clean, then 10 s while gated
	for i := range s {
		s[i].at = t0.Add(time.Duration(i) * time.Second)
		s[i].gated = i >= 10
	}
	if e, ok := estimate(s[:10]); !ok || e.JobTime != 2*time.Second {
		t.Fatalf("clean run: %+v ok %v", e, ok)
	}
	if e, ok := estimate(s); ok {
		t.Fatalf("gated readings used: %+v", e)
	}
	for i := range s {
		s[i].gated = false
	}
	if e, ok := estimate(s); !ok || e.JobTime <= 2*time.Second {
		t.Fatalf("ungated, the slow tail should count: %+v ok %v", e, ok)
	}
}
