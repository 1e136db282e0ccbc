package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// queuePage is an exporter page of one worker (concurrency 15, runner
// limit 5) with the given jobs waiting in Redis and tasks running.
func queuePage(waiting, running int) string { return page("15", waiting, running) }

// page is queuePage with the worker's concurrency: +Inf for a
// regular-mode main.
func page(concurrency string, waiting, running int) string {
	return fmt.Sprintf(`# TYPE n8n_worker_concurrency gauge
n8n_worker_concurrency{worker="w1"} %s
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="r1",worker="w1"} 5
# TYPE n8n_runner_tasks_running gauge
n8n_runner_tasks_running{probe="p1"} %d
# TYPE n8n_queue_jobs gauge
n8n_queue_jobs{state="active"} 0
n8n_queue_jobs{state="waiting"} %d
`, concurrency, running, waiting)
}

// serve answers every read with page(); it stops with the test.
func serve(t *testing.T, page func() string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, page()) }))
	t.Cleanup(srv.Close)
	return srv
}

// A restarted runner leaves jobs waiting for its slots while none runs:
// settle waits until Redis is empty too, and says so when it never is.
func TestSettleWaitsForTheQueue(t *testing.T) {
	var polls atomic.Int32
	srv := serve(t, func() string {
		waiting := 0
		if polls.Add(1) <= 3 {
			waiting = 13
		}
		return queuePage(waiting, 0)
	})
	want := Shape{RunnerLimits: []int{5}, WorkerConcurrency: []int{15}}
	var heard []string
	if _, err := settle(context.Background(), srv.Client(), srv.URL, want, 5*time.Second, 10*time.Millisecond, func(why string) { heard = append(heard, why) }); err != nil {
		t.Fatal(err)
	}
	if n := polls.Load(); n != 4 {
		t.Errorf("settled after %d reads, want 4 (three with 13 jobs waiting)", n)
	}
	if len(heard) != 1 || heard[0] != "13 jobs still active or waiting in Redis" {
		t.Errorf("heard %q, want the one reason once", heard)
	}

	stuck := serve(t, func() string { return queuePage(2, 0) })
	_, err := settle(context.Background(), stuck.Client(), stuck.URL, want, 100*time.Millisecond, 10*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "2 jobs still active or waiting in Redis") {
		t.Fatalf("err %v, want the jobs named", err)
	}
}

// In regular mode nothing takes jobs from Redis: those a removed queue
// worker left there do not hold the next case back.
func TestSettleIgnoresTheQueueInRegularMode(t *testing.T) {
	srv := serve(t, func() string { return page("+Inf", 5, 0) })
	want := Shape{RunnerLimits: []int{5}}
	if _, err := settle(context.Background(), srv.Client(), srv.URL, want, time.Second, 10*time.Millisecond, nil); err != nil {
		t.Fatal(err)
	}
}
