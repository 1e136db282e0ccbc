package queue

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/redis/go-redis/v9"
)

// Bull-shaped keys in a real redis-server: lists for wait/active/delayed/
// paused, sorted sets for completed/failed, under a custom prefix.
func TestDepthRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	for i := 0; i < 5; i++ {
		c.LPush(ctx, "n8nq:jobs:wait", strconv.Itoa(i))
	}
	c.LPush(ctx, "n8nq:jobs:active", "a", "b", "c")
	c.LPush(ctx, "n8nq:jobs:paused", "p")
	c.ZAdd(ctx, "n8nq:jobs:completed", redis.Z{Score: 1, Member: "x"}, redis.Z{Score: 2, Member: "y"})
	c.ZAdd(ctx, "n8nq:jobs:failed", redis.Z{Score: 1, Member: "f"})
	c.LPush(ctx, "bull:jobs:wait", "other prefix")

	got, err := NewReader(c, "n8nq").Depth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"waiting": 5, "active": 3, "delayed": 0, "paused": 1, "completed": 2, "failed": 1}
	for s, n := range want {
		if got[s] != n {
			t.Errorf("%s: %d, want %d", s, got[s], n)
		}
	}
	if d, _ := NewReader(c, "").Depth(ctx); d["waiting"] != 1 {
		t.Errorf("default prefix bull: %v", d)
	}
}

// A key of the wrong type (a hostile or foreign value) is an error, not a
// crash or a zero.
func TestDepthWrongType(t *testing.T) {
	r := queuetest.Start(t)
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

// The sampler against real Redis: the test plays Bull, setting the active
// list and the id counter before each reading, and stamps readings with
// synthetic times so the result does not depend on the machine's speed.
func TestSamplerRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	s := NewSampler(NewReader(c, "bull"), time.Second, 30*time.Second)
	s.SetSlots(10)
	if _, ok, err := s.JobTime(); ok || err != nil {
		t.Fatalf("fresh sampler: ok %v err %v", ok, err)
	}
	c.LPush(ctx, "bull:jobs:active", "1", "2", "3", "4") // 4 active
	for i := 0; i < 12; i++ {
		c.IncrBy(ctx, "bull:jobs:id", 2) // 2 arrivals per second
		s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
	}
	e, ok, err := s.JobTime()
	if err != nil || !ok || e.JobTime != 2*time.Second {
		t.Fatalf("got %+v ok %v err %v, want 2 s (4 active / 2 per s)", e, ok, err)
	}
	// Saturation (10 of 10 slots busy) must not change the held estimate.
	c.LPush(ctx, "bull:jobs:active", "5", "6", "7", "8", "9", "10")
	for i := 12; i < 20; i++ {
		c.IncrBy(ctx, "bull:jobs:id", 1)
		s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
	}
	if e2, _, _ := s.JobTime(); e2.JobTime != 2*time.Second {
		t.Fatalf("estimate moved while saturated: %v", e2.JobTime)
	}
	// Redis down: the error is reported, the estimate is kept.
	c.Shutdown(ctx)
	s.Step(ctx, t0.Add(21*time.Second))
	if e3, ok, err := s.JobTime(); err == nil || !ok || e3.JobTime != 2*time.Second {
		t.Fatalf("after shutdown: %+v ok %v err %v", e3, ok, err)
	}
}

// The gate against real Redis: readings taken while it says "runner
// saturated" leave the estimate where it was, and BusySinceLast reports
// them (and jobs waiting) once per interval.
func TestSamplerGateRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	s := NewSampler(NewReader(c, "bull"), time.Second, time.Minute)
	s.SetSlots(15)
	saturatedNow := false
	s.SetGate(func() bool { return saturatedNow })
	c.LPush(ctx, "bull:jobs:active", "1", "2")
	step := func(from, to int) {
		for i := from; i < to; i++ {
			c.IncrBy(ctx, "bull:jobs:id", 1)
			s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
		}
	}
	step(0, 10) // 2 active, 1 per second: 2 s
	if e, ok, _ := s.JobTime(); !ok || e.JobTime != 2*time.Second || s.BusySinceLast() {
		t.Fatalf("clean: %+v ok %v", e, ok)
	}
	saturatedNow = true
	c.LPush(ctx, "bull:jobs:active", "3", "4", "5", "6", "7", "8", "9", "10") // 10 active, worker not full
	step(10, 25)
	if e, _, _ := s.JobTime(); e.JobTime != 2*time.Second {
		t.Fatalf("estimate moved while the runner was saturated: %v", e.JobTime)
	}
	if !s.BusySinceLast() || s.BusySinceLast() {
		t.Fatal("BusySinceLast should report the gated readings once")
	}
	saturatedNow = false
	c.LPush(ctx, "bull:jobs:wait", "w1")
	step(25, 26)
	if !s.BusySinceLast() {
		t.Fatal("a reading with a job waiting should count as busy")
	}
}

// Bull keeps delayed jobs in a sorted set: depth reads it with ZCARD.
func TestDepthDelayedSortedSet(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	r.Client.ZAdd(ctx, "bull:jobs:delayed", redis.Z{Score: 1, Member: "d1"}, redis.Z{Score: 2, Member: "d2"})
	got, err := NewReader(r.Client, "bull").Depth(ctx)
	if err != nil || got["delayed"] != 2 {
		t.Fatalf("delayed %v, err %v", got["delayed"], err)
	}
}

// Completed is the id counter minus the jobs still queued, read against
// Bull-shaped keys in a real redis-server.
func TestCompletedRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	rd := NewReader(c, "bull")
	if n, err := rd.Completed(ctx); err != nil || n != 0 {
		t.Fatalf("empty queue: %v %v", n, err)
	}
	c.Set(ctx, "bull:jobs:id", "40", 0)
	c.LPush(ctx, "bull:jobs:wait", "38", "39", "40")
	c.LPush(ctx, "bull:jobs:active", "35", "36", "37")
	c.LPush(ctx, "bull:jobs:paused", "34")
	c.ZAdd(ctx, "bull:jobs:delayed", redis.Z{Score: 1, Member: "33"})
	if n, err := rd.Completed(ctx); err != nil || n != 32 {
		t.Fatalf("completed %v %v, want 32", n, err)
	}
	c.Set(ctx, "bull:jobs:id", "forty", 0)
	if _, err := rd.Completed(ctx); err == nil {
		t.Fatal("a non-numeric id counter was read")
	}
}
