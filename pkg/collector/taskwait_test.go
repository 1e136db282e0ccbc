package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
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
	hasLines(t, Verdict(r), "task requests wait 1.0 s on average for a runner slot; n8n fails one at 60 s (N8N_RUNNERS_TASK_REQUEST_TIMEOUT): Little's law on n8n's execution histogram")
	want := `
# HELP n8n_worker_task_request_wait_seconds Mean time a Code task's request waits inside the worker for a runner slot, by Little's law on the jobs past its runner capacity (the workers' mean in queue mode); absent until measured.
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
