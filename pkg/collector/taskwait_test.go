package collector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
)

// A regular-mode main with its internal runner of limit 5 and n8n's
// default 60 s request timeout: 10 executions in flight, 5 completing a
// second, each 2 s long. Half of each is the wait for a runner slot, so
// task requests wait 1 s; / and /metrics say so. Queue mode's Redis
// figure is pkg/queue's RunnerWait.
func TestTaskWaitRegularMode(t *testing.T) {
	c := New(Config{})
	for i := range 8 {
		c.n8n.d.runs.record(histPoint{at: t0.Add(time.Duration(i) * 5 * time.Second), sum: float64(i) * 50, count: uint64(i) * 25})
	}
	r := shapeReport(t, ServiceTime{Stage: "job", Source: "n8n", Time: 2 * time.Second}, "inspect-regular-main.json")
	c.measureTaskWait(r)
	if r.Wait == nil || r.Wait.Time != time.Second || r.Wait.Source != SourceN8n {
		t.Fatalf("wait %+v, want 1 s from n8n's histogram", r.Wait)
	}
	hasLines(t, Verdict(r), "task requests wait 1.0 s for a runner slot; n8n fails one at 60 s (N8N_RUNNERS_TASK_REQUEST_TIMEOUT): the mean over 30s of n8n's execution histogram by Little's law")
	want := `
# HELP n8n_worker_task_request_wait_seconds Time a Code task's request waits inside the worker for a runner slot: queue mode, the requests its worst worker holds past the runner capacity × task time ÷ capacity, now; regular mode, the mean over the exporter's sample window by Little's law on n8n's execution histogram. Absent until measured.
# TYPE n8n_worker_task_request_wait_seconds gauge
n8n_worker_task_request_wait_seconds{worker="fx-regular-main"} 1
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_worker_task_request_wait_seconds"); err != nil {
		t.Error(err)
	}
	// Nothing measured: no series, no line.
	quiet := shapeReport(t, ServiceTime{Stage: "job", Source: "n8n", Time: 2 * time.Second}, "inspect-regular-main.json")
	New(Config{}).measureTaskWait(quiet)
	if quiet.Wait != nil || strings.Contains(strings.Join(Verdict(quiet), "\n"), "task requests wait") {
		t.Errorf("a wait with no histogram read: %+v", quiet.Wait)
	}
	if n := testutil.CollectAndCount(reportCollector{quiet}, "n8n_worker_task_request_wait_seconds"); n != 0 {
		t.Errorf("%d wait series with nothing measured", n)
	}
}

// Queue mode on real Redis: the worker holds 14 jobs behind its runner's
// 10 slots, so a request arriving now waits for 4 of them to free, at 10
// per 3 s task: 1.2 s. A reading older than staleWaiting gives none.
func TestTaskWaitQueueMode(t *testing.T) {
	rd := queuetest.Start(t)
	ctx := context.Background()
	s := queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute)
	s.SetRunnerLimit(10)
	holdJobs(rd.Client, 14)
	s.Step(ctx, t0)
	c := New(Config{Sampler: s})
	r := shapeReport(t, ServiceTime{Stage: StageJob, Source: SourceRedis, Time: 3 * time.Second}, "inspect-lab-worker-1.json", "inspect-lab-runner-1-1.json")
	r.At = t0.Add(time.Second)
	c.measureTaskWait(r)
	if r.Wait == nil || r.Wait.Time != 1200*time.Millisecond || r.Wait.Source != SourceRedis {
		t.Fatalf("wait %+v, want 1.2 s from Redis", r.Wait)
	}
	hasLines(t, Verdict(r), "task requests wait 1.2 s for a runner slot; n8n fails one at 60 s (N8N_RUNNERS_TASK_REQUEST_TIMEOUT): 4 requests wait behind one worker's 10 runner slots")
	stale := shapeReport(t, ServiceTime{Stage: StageJob, Source: SourceRedis, Time: 3 * time.Second}, "inspect-lab-worker-1.json", "inspect-lab-runner-1-1.json")
	stale.At = t0.Add(staleWaiting + time.Second)
	c.measureTaskWait(stale)
	if stale.Wait != nil {
		t.Errorf("a wait from a reading %v old: %+v", staleWaiting+time.Second, stale.Wait)
	}
}
