package collector

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
)

// One tick feeds both estimators: Run starts no loop of the Redis
// sampler's own when the CPU sampler counts executions through it, so
// Redis sees one reading a second, and each CPU reading's count is that
// reading's (Bull's 5 jobs added, 2 still waiting: 3 completed).
func TestOneTickFeedsJobTimeAndDemands(t *testing.T) {
	r := queuetest.StartMemory(t)
	ctx := context.Background()
	r.Client.Set(ctx, "bull:jobs:id", "5", 0)
	r.Client.LPush(ctx, "bull:jobs:wait", "4", "5")
	smp := queue.NewSampler(queue.NewReader(r.Client, "bull"), time.Second, time.Minute)
	smp.Step(ctx, time.Now()) // the first reading opens the connection
	before := r.CommandCount()
	smp.Step(ctx, time.Now())
	perReading := r.CommandCount() - before
	synctest.Test(t, func(t *testing.T) {
		c := New(Config{Platform: fixedPlatform{}, Sampler: smp, CPU: &CPUConfig{Executions: smp, Interval: time.Second}})
		if !c.cpuDrivesSampler() {
			t.Fatal("the CPU sampler does not count through the Redis sampler")
		}
		start := r.CommandCount()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { c.Run(ctx); close(done) }()
		time.Sleep(10*time.Second + time.Second/2)
		cancel()
		<-done
		if got := r.CommandCount() - start; got != 11*perReading {
			t.Errorf("%d Redis commands in 10.5 s, want %d: 11 readings of %d", got, 11*perReading, perReading)
		}
		c.cpu.mu.Lock()
		v := c.cpu.view
		c.cpu.mu.Unlock()
		if !v.counted || v.completed != 3 || v.countedFrom != CountRedis {
			t.Errorf("CPU reading counted %v (%v from %q), want 3 from redis", v.completed, v.counted, v.countedFrom)
		}
	})
}
