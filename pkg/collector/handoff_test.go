package collector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/redis/go-redis/v9"
)

// The runner of limit 2 ran 1.049 s tasks with 57 ms hand-offs between
// them. While the worker held more jobs than its 2 runner slots in every
// reading, each slot held its task and the hand-off: 1.106 s. Once it held
// only 2, a hand-off may hold a wait for work, so the task time stands.
func TestTaskTimeHoldsTheHandoffWhileTasksWaited(t *testing.T) {
	rd := queuetest.Start(t)
	ctx := context.Background()
	s := queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, 30*time.Second)
	s.SetRunnerLimit(2)
	holdJobs(rd.Client, 3)
	s.Step(ctx, t0)
	s.Step(ctx, t0.Add(time.Second))
	probe := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", Running: 2, InferredLimit: 2,
		RecentTaskMean: 1049 * time.Millisecond, RecentTaskCount: 40, RecentHandoffMean: 57 * time.Millisecond, RecentHandoffCount: 38})
	c := New(Config{Sampler: s, Probes: labProbes(probe)})
	task := func() ServiceTime {
		r := shapeReport(t, ServiceTime{Stage: StageJob, Source: SourceRedis, Time: 10 * time.Second}, "inspect-lab-worker-1.json", "inspect-lab-runner-1-1.json")
		r.Measured = nil
		c.measureTaskTime(r)
		if len(r.Measured) != 1 {
			t.Fatalf("measured %+v, want the task stage", r.Measured)
		}
		return r.Measured[0]
	}
	if m := task(); m.Time != 1106*time.Millisecond || m.Source != SourceProbe {
		t.Errorf("tasks waited throughout: task time %v from %s (%s), want 1.106 s from the probe", m.Time, m.Source, m.Note)
	}
	rd.Client.LRem(ctx, "bull:jobs:active", 0, "3")
	s.Step(ctx, t0.Add(2*time.Second))
	if m := task(); m.Time != 1049*time.Millisecond {
		t.Errorf("2 jobs for 2 runner slots: task time %v (%s), want the tasks' 1.049 s", m.Time, m.Note)
	}
}

// holdJobs plays one worker taking jobs 1 to n, as Bull writes them: each
// in the active list with its lock key holding the worker's token.
func holdJobs(c redis.UniversalClient, n int) {
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprint(i + 1)
		c.LPush(ctx, "bull:jobs:active", id)
		c.Set(ctx, "bull:jobs:"+id+":lock", "worker-token", 0)
	}
}

// Regular mode has no Bull queue to tell waiting tasks: the probe's task
// time stands.
func TestTaskTimeWithoutQueueLeavesHandoffOut(t *testing.T) {
	probe := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", RecentTaskMean: time.Second, RecentTaskCount: 10,
		RecentHandoffMean: time.Second, RecentHandoffCount: 10})
	c := New(Config{Probes: labProbes(probe)})
	r := &Report{Topology: topology.Topology{}}
	c.measureTaskTime(r)
	if len(r.Measured) != 1 || r.Measured[0].Time != time.Second {
		t.Errorf("measured %+v, want the tasks' 1 s alone", r.Measured)
	}
}
