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
// paused, sorted sets for completed/failed, under a custom prefix. This
// stays on the real server because Bull's key layout and types are what
// it checks; the sampler's tests use an in-memory Redis.
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

// A worker pool's queue is jobs-<pool> under the same prefix: its reader
// counts its keys alone, and the default queue's reader none of them.
func TestDepthOfAPoolRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	c.LPush(ctx, "n8nq:jobs-heavy:wait", "1", "2")
	c.LPush(ctx, "n8nq:jobs-heavy:active", "3")
	c.ZAdd(ctx, "n8nq:jobs-heavy:completed", redis.Z{Score: 1, Member: "0"})
	c.LPush(ctx, "n8nq:jobs:wait", "default")
	c.LPush(ctx, "n8nq:jobs-light:wait", "other pool")
	jobs := NewReader(c, "n8nq")
	heavy, err := jobs.Pool("heavy").Depth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if heavy["waiting"] != 2 || heavy["active"] != 1 || heavy["completed"] != 1 || heavy["failed"] != 0 {
		t.Errorf("pool heavy: %v, want 2 waiting, 1 active, 1 completed", heavy)
	}
	if d, err := jobs.Depth(ctx); err != nil || d["waiting"] != 1 || d["active"] != 0 {
		t.Errorf("default queue: %v %v, want its 1 waiting alone", d, err)
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
// Bull-shaped keys in a real redis-server, in the reading it adds.
func TestCompletedRealRedis(t *testing.T) {
	r := queuetest.Start(t)
	ctx := context.Background()
	c := r.Client
	rd := NewSampler(NewReader(c, "bull"), time.Second, time.Minute)
	if n, err := rd.Completed(ctx, t0); err != nil || n != 0 {
		t.Fatalf("empty queue: %v %v", n, err)
	}
	c.Set(ctx, "bull:jobs:id", "40", 0)
	c.LPush(ctx, "bull:jobs:wait", "38", "39", "40")
	c.LPush(ctx, "bull:jobs:active", "35", "36", "37")
	c.LPush(ctx, "bull:jobs:paused", "34")
	c.ZAdd(ctx, "bull:jobs:delayed", redis.Z{Score: 1, Member: "33"})
	if n, err := rd.Completed(ctx, t0.Add(time.Second)); err != nil || n != 32 {
		t.Fatalf("completed %v %v, want 32", n, err)
	}
	if rd.samples.Len() != 2 {
		t.Errorf("%d readings kept, want the 2 taken", rd.samples.Len())
	}
	c.Set(ctx, "bull:jobs:id", "forty", 0)
	if _, err := rd.Completed(ctx, t0.Add(2*time.Second)); err == nil {
		t.Fatal("a non-numeric id counter was read")
	}
}
