package capacity

import (
	"errors"
	"testing"
	"time"
)

// threeByThree is `--scale n8n-worker=3 --scale n8n-runner=3`: workers of
// 10 slots, runners of limit 5, each runner on any worker.
func threeByThree(service ServiceTime) Cluster {
	c := Cluster{Service: service}
	for range 3 {
		c.Workers = append(c.Workers, Worker{Concurrency: 10})
		c.Spread = append(c.Spread, SpreadRunner{Limit: 5, Candidates: []int{0, 1, 2}})
	}
	return c
}

func TestSpreadBoundsEveryPlacement(t *testing.T) {
	v, err := Evaluate(threeByThree(Single(time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	// All three on one worker: min(10, 15) = 10; any other placement 15.
	want := Range{EffectiveLow: 10, EffectiveHigh: 15, CeilingLow: 10, CeilingHigh: 15, Exact: true}
	if v.Range == nil || *v.Range != want {
		t.Fatalf("range %+v, want %+v", v.Range, want)
	}
	if v.Effective != 10 || v.Ceiling != 10 || v.RunnerCapacity != 15 || v.WorkersWithoutRunner != 0 {
		t.Errorf("effective %d ceiling %v capacity %d without runner %d", v.Effective, v.Ceiling, v.RunnerCapacity, v.WorkersWithoutRunner)
	}
	for _, w := range v.Workers {
		if !w.Spread || w.RunnerCapacity != 0 {
			t.Errorf("worker %+v", w)
		}
	}
}

// A runner known to serve worker 0 and one spread over workers 0 and 1:
// worker 1 may have none, so the low end leaves it without.
func TestSpreadWithAKnownRunner(t *testing.T) {
	c := Cluster{Workers: []Worker{{Concurrency: 4, Runners: []Runner{{Limit: 3}}}, {Concurrency: 4}, {Concurrency: 2}},
		Spread: []SpreadRunner{{Limit: 3, Candidates: []int{0, 1}}}}
	v, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Range; r == nil || r.EffectiveLow != 4 || r.EffectiveHigh != 6 || r.CeilingHigh != 0 || !r.Exact {
		t.Errorf("range %+v, want 4..6 exact, no ceiling", r)
	}
	if v.WorkersWithoutRunner != 1 || v.Workers[1].Spread != true || v.Workers[2].Spread {
		t.Errorf("without runner %d (worker 2 alone), workers %+v", v.WorkersWithoutRunner, v.Workers)
	}
}

// Past maxPlacements the bounds are the loose ones, which still contain
// every placement.
func TestSpreadTooManyPlacements(t *testing.T) {
	c := Cluster{Service: Single(time.Second), Workers: []Worker{{Concurrency: 8}, {Concurrency: 8}}}
	for range 13 {
		c.Spread = append(c.Spread, SpreadRunner{Limit: 1, Candidates: []int{0, 1}})
	}
	v, err := Evaluate(c)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Range; r == nil || r.Exact || r.EffectiveLow != 0 || r.EffectiveHigh != 16 || r.CeilingLow != 0 || r.CeilingHigh != 16 {
		t.Errorf("range %+v, want the loose 0..16", r)
	}
	c.Spread = c.Spread[:12]
	if v, _ := Evaluate(c); !v.Range.Exact || v.Range.EffectiveLow != 8 || v.Range.EffectiveHigh != 12 {
		t.Errorf("12 runners: range %+v, want exact 8..12", v.Range)
	}
}

func TestSpreadValidate(t *testing.T) {
	for _, s := range []SpreadRunner{{Limit: 0, Candidates: []int{0}}, {Limit: 1}, {Limit: 1, Candidates: []int{1}}, {Limit: 1, Candidates: []int{-1}}} {
		c := Cluster{Workers: []Worker{{Concurrency: 1}}, Spread: []SpreadRunner{s}}
		if _, err := Evaluate(c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", s, err)
		}
	}
}

// A runner that may serve a queue-mode main instead may leave both
// workers without it.
func TestSpreadElsewhere(t *testing.T) {
	c := Cluster{Workers: []Worker{{Concurrency: 4}, {Concurrency: 4}}, Spread: []SpreadRunner{{Limit: 3, Candidates: []int{0, 1}, Elsewhere: true}}}
	if v, err := Evaluate(c); err != nil || v.Range.EffectiveLow != 0 || v.Range.EffectiveHigh != 3 {
		t.Errorf("range %+v, %v; want 0..3", v.Range, err)
	}
}

// Spread runners leave one slot resource whose ceiling is the range's low
// end.
func TestSpreadSlotResource(t *testing.T) {
	v, _ := Evaluate(threeByThree(Single(2 * time.Second)))
	rs := SlotResources(v)
	if len(rs) != 1 || rs[0].Name != SpreadSlots || rs[0].Servers != 10 || rs[0].Ceiling() != 5 {
		t.Errorf("resources %+v, want slots:spread of 10 servers, ceiling 5/s", rs)
	}
	v, _ = Evaluate(threeByThree(ServiceTime{}))
	if rs := SlotResources(v); len(rs) != 1 || rs[0].Known() {
		t.Errorf("without a service time: %+v", rs)
	}
}
