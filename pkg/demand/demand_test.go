package demand

import (
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Ten executions a second, the host spending 0.34 s and main 0.12 s of CPU
// a second: 34 ms and 12 ms per execution once the window holds 50.
func TestSteadyLoad(t *testing.T) {
	tr := &Tracker{Window: 30 * time.Second, MinExecutions: 50}
	for s := 0; s <= 40; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(10 * s), CPU: map[string]float64{"cpu:host": 0.34 * float64(s), "cpu:main": 100 + 0.12*float64(s)}})
		_, ok, waiting := tr.Last()
		if s < 5 && (ok || !strings.Contains(waiting, "fewer than 50")) {
			t.Fatalf("second %d: an estimate from %d executions (waiting %q)", s, 10*s, waiting)
		}
	}
	e, ok, waiting := tr.Last()
	if !ok || waiting != "" {
		t.Fatalf("no estimate after 40 s: %q", waiting)
	}
	if e.Span != 30*time.Second || e.Executions != 300 || !near(e.Rate(), 10) {
		t.Fatalf("window: span %v executions %v rate %v", e.Span, e.Executions, e.Rate())
	}
	if !near(e.Demand["cpu:host"], 0.034) || !near(e.Demand["cpu:main"], 0.012) || len(e.Unknown) != 0 {
		t.Fatalf("demands %v unknown %v", e.Demand, e.Unknown)
	}
}

// When the load stops, the window fills with idle readings: the last
// estimate taken under load is held.
func TestHeldWhenIdle(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MinExecutions: 20}
	for s := 0; s <= 10; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(5 * s), CPU: map[string]float64{"cpu:host": 0.1 * float64(s)}})
	}
	for s := 11; s <= 40; s++ {
		tr.Add(Reading{At: at(s), Executions: 50, CPU: map[string]float64{"cpu:host": 1 + 0.01*float64(s-10)}})
	}
	e, ok, waiting := tr.Last()
	if !ok || !strings.Contains(waiting, "0 executions") {
		t.Fatalf("ok %v waiting %q", ok, waiting)
	}
	// Later windows mix in the idle CPU (0.01 s a second): the held one
	// is the last whose halves differ by at most 2×, two idle seconds in.
	if math.Abs(e.Demand["cpu:host"]-0.02) > 0.002 || !e.At.Equal(at(12)) {
		t.Fatalf("held estimate %+v", e)
	}
}

// A container restarted inside the window: its counter starts again from
// near zero. That resource is measured from the restart, once it has
// served MinExecutions; until then it is unknown. The others keep their
// demand over the whole window.
func TestCounterReset(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MinExecutions: 10}
	cpu := func(s int) map[string]float64 {
		runner := 50 + 0.1*float64(s)
		if s >= 5 {
			runner = 0.1 * float64(s-5)
		}
		return map[string]float64{"cpu:host": 0.2 * float64(s), "cpu:runner": runner}
	}
	for s := 0; s <= 7; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(4 * s), CPU: cpu(s)})
	}
	e, _, _ := tr.Last()
	if _, ok := e.Demand["cpu:runner"]; ok || !strings.Contains(e.Unknown["cpu:runner"], "8 executions since it started or restarted, fewer than 10") {
		t.Fatalf("runner 2 s after its restart: demand %v unknown %v", e.Demand, e.Unknown)
	}
	if !near(e.Demand["cpu:host"], 0.05) {
		t.Fatalf("host demand %v", e.Demand)
	}
	for s := 8; s <= 12; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(4 * s), CPU: cpu(s)})
	}
	// 0.7 s of CPU over the 28 executions since the restart, though the
	// reset is still inside the 10 s window.
	if e, _, _ = tr.Last(); !near(e.Demand["cpu:runner"], 0.025) || !near(e.Demand["cpu:host"], 0.05) {
		t.Fatalf("7 s after the restart: %v %v", e.Demand, e.Unknown)
	}
	for _, d := range e.Demand {
		if d < 0 {
			t.Fatalf("negative demand %v", e.Demand)
		}
	}
}

// The execution counter itself going back (Redis flushed) starts a new
// window; a resource first seen mid-window is measured from its first
// reading once it has served MinExecutions.
func TestExecutionsReset(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MinExecutions: 10}
	for s := 0; s <= 10; s++ {
		tr.Add(Reading{At: at(s), Executions: 1000 + float64(3*s), CPU: map[string]float64{"cpu:host": float64(s)}})
	}
	tr.Add(Reading{At: at(11), Executions: 2, CPU: map[string]float64{"cpu:host": 11, "cpu:new": 1}})
	if _, _, waiting := tr.Last(); !strings.Contains(waiting, "0 executions") {
		t.Fatalf("after a reset the window restarts: %q", waiting)
	}
	for s := 12; s <= 20; s++ {
		tr.Add(Reading{At: at(s), Executions: 2 + float64(3*(s-11)), CPU: map[string]float64{"cpu:host": float64(s), "cpu:new": float64(s - 10)}})
	}
	e, _, waiting := tr.Last()
	if waiting != "" || !near(e.Demand["cpu:host"], 1.0/3) || !near(e.Demand["cpu:new"], 1.0/3) {
		t.Fatalf("new window: %v %v %q", e.Demand, e.Unknown, waiting)
	}
	tr.Add(Reading{At: at(21), Executions: 32, CPU: map[string]float64{"cpu:host": 21, "cpu:late": 5}})
	if e, _, _ = tr.Last(); !strings.Contains(e.Unknown["cpu:late"], "0 executions since it started") {
		t.Fatalf("a resource that appeared mid-window: %v", e.Unknown)
	}
	for s := 22; s <= 26; s++ {
		tr.Add(Reading{At: at(s), Executions: 32 + float64(3*(s-21)), CPU: map[string]float64{"cpu:host": float64(s), "cpu:late": 5 + 0.06*float64(s-21)}})
	}
	if e, _, _ = tr.Last(); !near(e.Demand["cpu:late"], 0.02) {
		t.Fatalf("a resource that appeared mid-window, 15 executions on: %v %v", e.Demand, e.Unknown)
	}
}

// A reading whose clock does not move forward restarts the window rather
// than dividing by a zero or negative span.
func TestClockStep(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MinExecutions: 1}
	tr.Add(Reading{At: at(5), Executions: 0, CPU: map[string]float64{"cpu:host": 0}})
	tr.Add(Reading{At: at(6), Executions: 5, CPU: map[string]float64{"cpu:host": 1}})
	tr.Add(Reading{At: at(2), Executions: 6, CPU: map[string]float64{"cpu:host": 2}})
	if _, _, waiting := tr.Last(); waiting == "" {
		t.Fatal("an estimate across a clock step back")
	}
}

// A load that starts midway: the window waits until both halves hold it.
func TestLoadStarting(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MinExecutions: 20}
	for s := 0; s <= 10; s++ {
		n := max(0, 10*(s-6))
		tr.Add(Reading{At: at(s), Executions: float64(n), CPU: map[string]float64{"cpu:host": 0.05 * float64(s)}})
	}
	if _, ok, waiting := tr.Last(); ok || !strings.Contains(waiting, "load changed") {
		t.Fatalf("ok %v waiting %q", ok, waiting)
	}
}

// An execution every 2 s, 2 CPU seconds each: the last 30 s hold 15, so
// the window stretches back to hold 30 (59 s), and no further than
// MaxWindow.
func TestSlowLoadStretches(t *testing.T) {
	tr := &Tracker{Window: 30 * time.Second, MaxWindow: 2 * time.Minute, MinExecutions: 30}
	for s := 0; s <= 59; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(s / 2), CPU: map[string]float64{"cpu:runner": float64(s / 2 * 2)}})
	}
	if _, ok, waiting := tr.Last(); ok || !strings.Contains(waiting, "29 executions in the last 59s") {
		t.Fatalf("59 s in: ok %v waiting %q", ok, waiting)
	}
	tr.Add(Reading{At: at(60), Executions: 30, CPU: map[string]float64{"cpu:runner": 60}})
	e, ok, waiting := tr.Last()
	if !ok || waiting != "" || e.Span != 59*time.Second || e.Executions != 30 || !near(e.Demand["cpu:runner"], 2) {
		t.Fatalf("60 s in: %+v ok %v waiting %q", e, ok, waiting)
	}
	for s := 61; s <= 200; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(s / 2), CPU: map[string]float64{"cpu:runner": float64(s / 2 * 2)}})
	}
	if e, _, _ = tr.Last(); e.Span > time.Minute || !near(e.Demand["cpu:runner"], 2) {
		t.Fatalf("steady: %+v", e)
	}
	// One execution in 10 s from then on: 2 minutes hold 12.
	for s := 201; s <= 400; s++ {
		tr.Add(Reading{At: at(s), Executions: float64(100 + (s-200)/10), CPU: map[string]float64{"cpu:runner": float64(s)}})
	}
	if _, _, waiting := tr.Last(); !strings.Contains(waiting, "12 executions in the last 2m0s") {
		t.Fatalf("slower than MaxWindow allows: %q", waiting)
	}
}

// A slow load after a fast one: the stretched window would reach back
// into the fast load's executions, which the halves refuse; the estimate
// held is the fast load's.
func TestStretchStopsAtALoadChange(t *testing.T) {
	tr := &Tracker{Window: 10 * time.Second, MaxWindow: time.Minute, MinExecutions: 20}
	n := 0.0
	for s := 0; s <= 40; s++ {
		if s <= 10 {
			n = float64(10 * s)
		} else {
			n = 100 + float64(s-10)/5
		}
		tr.Add(Reading{At: at(s), Executions: n, CPU: map[string]float64{"cpu:host": float64(s)}})
	}
	e, ok, waiting := tr.Last()
	if !ok || !strings.Contains(waiting, "load changed") || e.At.After(at(12)) || e.Demand["cpu:host"] > 0.13 {
		t.Fatalf("held %+v ok %v waiting %q", e, ok, waiting)
	}
}
