package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// The shutdown windows are published per worker and runner, and / warns
// only where the measured executions or tasks outlast them: the worker's
// 30 s default drains for 24 s on n8n 2.41, the runner was given 10 s.
func TestShutdownWindows(t *testing.T) {
	runner := labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5689", 2)
	runner.Settings.ShutdownTimeout = topology.Of(10)
	cs := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"), runner}
	c := New(Config{})
	r := &Report{Processes: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	if r.Verdict == nil {
		t.Fatal("no verdict")
	}
	if got := seriesText(t, reportCollector{r}, "n8n_worker_graceful_shutdown_timeout_seconds"); got != "n8n_worker_graceful_shutdown_timeout_seconds{worker=\"fx-worker-1\"} 30\n" {
		t.Errorf("worker series %q", got)
	}
	if got := seriesText(t, reportCollector{r}, "n8n_runner_graceful_shutdown_timeout_seconds"); got != "n8n_runner_graceful_shutdown_timeout_seconds{runner=\"fx-runner-1-1\",worker=\"fx-worker-1\"} 10\n" {
		t.Errorf("runner series %q", got)
	}

	r.Verdict.Service = capacity.ServiceTime{Job: 25 * time.Second, Task: 12 * time.Second}
	hasLines(t, Verdict(r),
		"worker fx-worker-1: an execution takes 25.0 s, and a stopping worker lets its running ones finish for 24.0 s (N8N_GRACEFUL_SHUTDOWN_TIMEOUT 30 s; n8n 2.41 drains for 0.8 of it): a deploy or scale-in cuts executions still running",
		"runner fx-runner-1-1: a task takes 12.0 s, longer than a stopping runner lets its tasks finish (N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT 10 s, n8n 2.41)")

	r.Verdict.Service = capacity.ServiceTime{Job: 23 * time.Second, Task: 9 * time.Second}
	if text := strings.Join(Verdict(r), "\n"); strings.Contains(text, "stopping") {
		t.Errorf("a shutdown warning for work that fits the windows:\n%s", text)
	}
}
