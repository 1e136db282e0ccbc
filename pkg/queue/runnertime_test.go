package queue

import (
	"context"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/redis/go-redis/v9"
)

// hold plays worker token taking jobs: each in the active list with its
// lock key holding the worker's token, as Bull writes it.
func hold(t *testing.T, c redis.UniversalClient, token string, ids ...string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		c.LPush(ctx, "bull:jobs:active", id)
		c.Set(ctx, "bull:jobs:"+id+":lock", token, 0)
	}
}

// sampled is a sampler over a real Redis of its own, with a 30 s window.
func sampled(t *testing.T) (redis.UniversalClient, *Sampler) {
	c := queuetest.StartMemory(t).Client
	return c, NewSampler(NewReader(c, "bull"), time.Second, 30*time.Second)
}

// Two workers behind runners of limit 4: one holds 12 jobs (8 wait inside
// it for a runner slot), the other 2. The runners then hold 4 + 2 tasks,
// and at 6 completions a second the task takes 1 s while the job takes
// 14 / 6 s. Gated readings (a saturated runner) give no job time but do
// give the runner time.
func TestRunnerTimeSaturated(t *testing.T) {
	ctx := context.Background()
	c, s := sampled(t)
	if _, ok := s.RunnerTime(); ok {
		t.Fatal("fresh sampler gave a runner time")
	}
	s.SetRunnerLimit(4)
	hold(t, c, "token-a", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")
	hold(t, c, "token-b", "13", "14")
	advance(c, s, 0, 12, 6)
	if _, ok, _ := s.JobTime(); ok || !s.BusySinceLast() {
		t.Fatal("a job time from readings where a worker held more jobs than its runners take")
	}
	e, ok := s.RunnerTime()
	if !ok || e.JobTime != time.Second || e.MeanActive != 6 || e.Rate != 6 {
		t.Fatalf("runner time %+v ok %v, want 1 s: 6 busy slots at 6 completions per s", e, ok)
	}
	// The 8 jobs past token-a's 4 runner slots wait for one.
	if n, at, ok := s.Waiting(); !ok || n != 8 || !at.Equal(t0.Add(11*time.Second)) {
		t.Fatalf("waiting %d at %v ok %v, want 8 at the newest reading", n, at, ok)
	}
	// A stalled job (no lock) in two readings: that stretch is skipped, and
	// the last clean figure is kept until a new steady run forms.
	c.LPush(ctx, "bull:jobs:active", "stalled")
	advance(c, s, 12, 15, 6)
	// The first reading without the lock may be a completion between the
	// round trips, so the figure kept ends there.
	if e2, ok := s.RunnerTime(); !ok || !e2.At.Equal(t0.Add(12*time.Second)) {
		t.Fatalf("with a stalled job: %+v ok %v, want the figure up to the first unlocked reading kept", e2, ok)
	}
}

// A lock key of a foreign type counts as locked, holder unknown: it is not
// taken for a stalled job, and the sampler does not fail.
func TestRunnerTimeForeignLock(t *testing.T) {
	ctx := context.Background()
	c, s := sampled(t)
	s.SetRunnerLimit(1)
	hold(t, c, "token-a", "1", "2")
	c.LPush(ctx, "bull:jobs:active", "3")
	c.HSet(ctx, "bull:jobs:3:lock", "x", "y")
	advance(c, s, 0, 8, 3)
	if e, ok := s.RunnerTime(); !ok || e.MeanActive != 2 || e.JobTime != time.Second*2/3 {
		t.Fatalf("got %+v ok %v, want 2 busy slots (1 per holder) at 3 per s", e, ok)
	}
	if _, _, err := s.JobTime(); err != nil {
		t.Fatalf("sampler error %v", err)
	}
}

// Limit 20 above the 14 jobs held, with jobs waiting in Redis: the workers
// are full, not the runners, so the readings give a job time (14 / 6 per
// s) and every held job counts as a task. Without a limit there is no
// runner time.
func TestRunnerTimeWorkersFull(t *testing.T) {
	ctx := context.Background()
	c, s := sampled(t)
	hold(t, c, "token-a", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")
	hold(t, c, "token-b", "13", "14")
	c.LPush(ctx, "bull:jobs:wait", "w1")
	advance(c, s, 0, 8, 6)
	if _, ok := s.RunnerTime(); ok {
		t.Fatal("a runner time with the capacity unknown")
	}
	if _, _, ok := s.Waiting(); ok {
		t.Fatal("requests waiting counted with the capacity unknown")
	}
	if _, ok, _ := s.JobTime(); ok {
		t.Fatal("jobs waited in Redis with nothing watching the runners, yet a job time")
	}
	s.SetRunnerLimit(20)
	advance(c, s, 8, 20, 6)
	e, ok, _ := s.JobTime()
	if !ok || e.MeanActive != 14 || e.Rate != 6 {
		t.Fatalf("job time %+v ok %v, want 14 held at 6 per s", e, ok)
	}
	if rt, ok := s.RunnerTime(); !ok || rt.MeanActive != 14 {
		t.Fatalf("runner time %+v ok %v, want all 14 held jobs busy", rt, ok)
	}
	if n, _, ok := s.Waiting(); !ok || n != 0 {
		t.Fatalf("waiting %d ok %v, want 0: every held job has a runner slot", n, ok)
	}
}

// A gate (a probe watching the runners) has the last word: with it open,
// a worker holding more jobs than its runner capacity still gives a job
// time, as when part of each job runs outside the runner.
func TestRunnerLimitYieldsToGate(t *testing.T) {
	c, s := sampled(t)
	s.SetRunnerLimit(2)
	s.SetGate(func() bool { return false })
	hold(t, c, "token-a", "1", "2", "3", "4", "5", "6")
	advance(c, s, 0, 8, 12)
	if e, ok, _ := s.JobTime(); !ok || e.JobTime != time.Second/2 {
		t.Fatalf("job time %+v ok %v, want 6 held / 12 per s", e, ok)
	}
}

// Tasks waited for the runner throughout the window only while every
// worker holding jobs held more than its runner capacity in every reading.
func TestWaitedThroughout(t *testing.T) {
	ctx := context.Background()
	c, s := sampled(t)
	s.SetRunnerLimit(2)
	hold(t, c, "token-a", "1", "2", "3")
	advance(c, s, 0, 1, 2)
	if s.WaitedThroughout() {
		t.Fatal("waited throughout after one reading")
	}
	advance(c, s, 1, 10, 2)
	if !s.WaitedThroughout() {
		t.Fatal("3 jobs held behind 2 runner slots in every reading, yet not waited throughout")
	}
	hold(t, c, "token-b", "4", "5")
	advance(c, s, 10, 11, 2)
	if s.WaitedThroughout() {
		t.Fatal("token-b holds 2 jobs for its 2 runner slots: its slots wait for work, yet waited throughout")
	}
	c.LRem(ctx, "bull:jobs:active", 0, "5")
	c.Del(ctx, "bull:jobs:4:lock")
	c.LRem(ctx, "bull:jobs:active", 0, "4")
	advance(c, s, 11, 50, 2) // token-b's reading leaves the 30 s window
	if !s.WaitedThroughout() {
		t.Fatal("every reading of the window full again, yet not waited throughout")
	}
}
