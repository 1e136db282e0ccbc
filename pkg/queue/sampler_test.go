package queue

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/redis/go-redis/v9"
)

// A key of the wrong type (a hostile or foreign value) is an error, not a
// crash or a zero.
func TestDepthWrongType(t *testing.T) {
	r := queuetest.StartMemory(t)
	ctx := context.Background()
	r.Client.Set(ctx, "bull:jobs:wait", "not a list", 0)
	if _, err := NewReader(r.Client, "bull").Depth(ctx); err == nil {
		t.Fatal("want WRONGTYPE error")
	}
	r.Client.Set(ctx, "bull:jobs:id", "NaN", 0)
	s := NewSampler(NewReader(r.Client, "bull"), time.Second, time.Minute)
	s.Step(ctx, t0)
	if _, _, err := s.JobTime(); err == nil {
		t.Fatal("want an error for a non-numeric id counter")
	}
}

// activate plays a worker taking jobs: each goes into the active list
// with the lock key Bull keeps while a worker processes it.
func activate(t *testing.T, c redis.UniversalClient, ids ...string) {
	t.Helper()
	hold(t, c, "worker-token", ids...)
}

// advance plays Bull and the clock from second from to second to: perSec
// jobs added each second, then one reading.
func advance(c redis.UniversalClient, s *Sampler, from, to int, perSec int64) {
	ctx := context.Background()
	for i := from; i < to; i++ {
		c.IncrBy(ctx, "bull:jobs:id", perSec)
		s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
	}
}

// The sampler against Redis: the test plays Bull, setting the active
// list and the id counter before each reading, and stamps readings with
// synthetic times so the result does not depend on the machine's speed.
func TestSampler(t *testing.T) {
	r := queuetest.StartMemory(t)
	ctx := context.Background()
	c := r.Client
	s := NewSampler(NewReader(c, "bull"), time.Second, 30*time.Second)
	if _, ok, err := s.JobTime(); ok || err != nil {
		t.Fatalf("fresh sampler: ok %v err %v", ok, err)
	}
	activate(t, c, "1", "2", "3", "4")          // 4 active
	c.LPush(ctx, "bull:jobs:active", "stalled") // a killed worker's job: no lock
	advance(c, s, 0, 12, 2)                     // 2 arrivals per second
	if e, ok, err := s.JobTime(); ok || err != nil {
		t.Fatalf("a stalled job in the active list: %+v ok %v err %v, want no estimate", e, ok, err)
	}
	// Bull removes the stalled job, which the counter takes for a
	// completion; the window starts after it. A job unlocked in one
	// reading only (it completed between the round trips) is no stall.
	c.LRem(ctx, "bull:jobs:active", 0, "stalled")
	for i := 12; i < 24; i++ {
		c.IncrBy(ctx, "bull:jobs:id", 2)
		if i == 18 {
			c.LPush(ctx, "bull:jobs:active", "raced")
		}
		s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
		c.LRem(ctx, "bull:jobs:active", 0, "raced")
	}
	e, ok, err := s.JobTime()
	if err != nil || !ok || e.JobTime != 2*time.Second || e.Span != 11*time.Second {
		t.Fatalf("got %+v ok %v err %v, want 2 s (4 active / 2 per s) over the 11 s after the removal", e, ok, err)
	}
	// Saturated: 10 jobs in service, 10 waiting, 4 arrive and 4 complete
	// each second, so the jobs now take 10 / 4 per s = 2.5 s. With no gate
	// nothing watches the runners, and jobs waiting may be waiting for
	// them: the estimate is held.
	activate(t, c, "5", "6", "7", "8", "9", "10")
	for i := range 10 {
		c.LPush(ctx, "bull:jobs:wait", "w"+string(rune('a'+i)))
	}
	advance(c, s, 24, 32, 4)
	if e2, _, _ := s.JobTime(); e2.JobTime != 2*time.Second {
		t.Fatalf("jobs waited, no gate: %+v, want the 2 s held", e2)
	}
	// A gate that sees the runners free: the saturated worker is measured,
	// the jobs waiting notwithstanding. Two more jobs keep their lock keys
	// from a killed worker; the live workers' 10 slots cap what counts.
	s.SetGate(func() bool { return false })
	s.SetSlots(10)
	activate(t, c, "killed-1", "killed-2")
	advance(c, s, 32, 40, 4)
	if e2, _, _ := s.JobTime(); e2.JobTime != 2500*time.Millisecond || e2.Rate != 4 {
		t.Fatalf("saturated worker, runners free: %+v, want 2.5 s at 4 completions per s", e2)
	}
	// Redis down: the error is reported, the estimate is kept.
	r.Close()
	s.Step(ctx, t0.Add(41*time.Second))
	if e3, ok, err := s.JobTime(); err == nil || !ok || e3.JobTime != 2500*time.Millisecond {
		t.Fatalf("after shutdown: %+v ok %v err %v", e3, ok, err)
	}
}

// The gate against Redis: readings taken while it says "runner
// saturated" leave the estimate where it was, and BusySinceLast reports
// them (and jobs waiting) once per interval.
func TestSamplerGate(t *testing.T) {
	r := queuetest.StartMemory(t)
	ctx := context.Background()
	c := r.Client
	s := NewSampler(NewReader(c, "bull"), time.Second, time.Minute)
	saturatedNow := false
	s.SetGate(func() bool { return saturatedNow })
	activate(t, c, "1", "2")
	step := func(from, to int) { advance(c, s, from, to, 1) }
	step(0, 25) // 2 active, 1 per second: 2 s
	if e, ok, _ := s.JobTime(); !ok || e.JobTime != 2*time.Second || s.BusySinceLast() {
		t.Fatalf("clean: %+v ok %v", e, ok)
	}
	saturatedNow = true
	activate(t, c, "3", "4", "5", "6", "7", "8", "9", "10") // 10 active, worker not full
	step(25, 40)
	if e, _, _ := s.JobTime(); e.JobTime != 2*time.Second {
		t.Fatalf("estimate moved while the runner was saturated: %v", e.JobTime)
	}
	if !s.BusySinceLast() || s.BusySinceLast() {
		t.Fatal("BusySinceLast should report the gated readings once")
	}
	saturatedNow = false
	c.LPush(ctx, "bull:jobs:wait", "w1")
	step(40, 41)
	if !s.BusySinceLast() {
		t.Fatal("a reading with a job waiting should count as busy")
	}
}

// Run reads once at start and then once per interval, stamped with the
// clock, until its context ends. The bubble's fake clock makes the count
// exact whatever the machine's load.
func TestSamplerRunTicks(t *testing.T) {
	r := queuetest.StartMemory(t)
	synctest.Test(t, func(t *testing.T) {
		s := NewSampler(NewReader(r.Client, "bull"), time.Second, time.Minute)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		start := time.Now()
		go func() { s.Run(ctx); close(done) }()
		time.Sleep(10*time.Second + time.Second/2)
		cancel()
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.samples.Len() != 11 {
			t.Fatalf("%d readings in 10.5 s at 1 s, want 11", s.samples.Len())
		}
		for i, smp := range s.samples.Readings() {
			if want := start.Add(time.Duration(i) * time.Second); !smp.at.Equal(want) {
				t.Fatalf("reading %d at %v, want %v", i, smp.at.Sub(start), want.Sub(start))
			}
		}
	})
}

// A reshape (other worker slots or runner capacity) drops what was
// measured under the old shape: the job time held from it and the runner
// time's run. Both come back from readings of the new shape alone.
func TestSamplerReshapeMeasuresAnew(t *testing.T) {
	c, s := sampled(t)
	s.SetSlots(10)
	s.SetRunnerLimit(8)
	hold(t, c, "token-a", "1", "2", "3", "4", "5", "6", "7", "8")
	advance(c, s, 0, 12, 4) // 8 held, 4 completions a second: 2 s
	if e, ok, _ := s.JobTime(); !ok || e.JobTime != 2*time.Second {
		t.Fatalf("before the reshape: %+v ok %v, want 2 s", e, ok)
	}
	if _, ok := s.RunnerTime(); !ok {
		t.Fatal("before the reshape: no runner time")
	}
	s.SetRunnerLimit(2)
	c.Del(context.Background(), "bull:jobs:active")
	hold(t, c, "token-a", "9", "10")
	advance(c, s, 12, 13, 4)
	if e, ok, _ := s.JobTime(); ok {
		t.Fatalf("right after the reshape: job time %+v held from the old shape", e)
	}
	if e, ok := s.RunnerTime(); ok {
		t.Fatalf("right after the reshape: runner time %+v from the old shape", e)
	}
	advance(c, s, 13, 25, 4) // 2 held, 4 completions a second: 0.5 s
	e, ok, _ := s.JobTime()
	if !ok || e.JobTime != 500*time.Millisecond || e.Span != 12*time.Second {
		t.Fatalf("after the reshape: %+v ok %v, want 0.5 s over the new shape's 12 s alone", e, ok)
	}
}
