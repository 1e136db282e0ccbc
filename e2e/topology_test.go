package e2e

import (
	"slices"
	"strings"
	"testing"
)

// The lab's shapes and the exporter's reading of them. go test runs the
// files in name order, so these come after the loads, one after the other
// on worker 7: TestLabShapes changes only the runners, and
// TestExporterTopology reads the shape back with one worker restart fewer.

// TestLabShapes checks the interface other issues rely on: two runners get
// their own containers with their limits, and a runner change leaves n8n be.
func TestLabShapes(t *testing.T) {
	upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "3,2"})
	before := containerIDs(t)
	for name, want := range map[string]string{"n8n-lab-runner-1-1": "3", "n8n-lab-runner-1-2": "2"} {
		if got := inspectEnv(t, name)["N8N_RUNNERS_MAX_CONCURRENCY"]; got != want {
			t.Errorf("%s: N8N_RUNNERS_MAX_CONCURRENCY=%q, want %s", name, got, want)
		}
	}
	if args := inspectArgs(t, "n8n-lab-worker-1"); !slices.Contains(args, "--concurrency=7") {
		t.Errorf("worker args %v lack --concurrency=7", args)
	}

	upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "4"})
	after := containerIDs(t)
	for _, name := range []string{"n8n-lab-main", "n8n-lab-worker-1"} {
		if before[name] == "" || before[name] != after[name] {
			t.Errorf("%s was restarted by a runner-limit change (%q → %q)", name, before[name], after[name])
		}
	}
	if _, ok := after["n8n-lab-runner-1-2"]; ok {
		t.Error("the second runner outlived LAB_RUNNER_LIMITS=4")
	}
	if got := inspectEnv(t, "n8n-lab-runner-1-1")["N8N_RUNNERS_MAX_CONCURRENCY"]; got != "4" {
		t.Errorf("runner limit after change: %q, want 4", got)
	}
}

// TestExporterTopology: the exporter reads the limits from Docker and names
// the runner as the bottleneck; a second worker without a runner shows up
// with capacity 0 on /metrics and by name on /.
func TestExporterTopology(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "3,2"})
	s := scrapeURL(t, must(t, eps, "exporter-metrics"))
	w1 := []string{"worker", "n8n-lab-worker-1"}
	for runner, want := range map[string]float64{"n8n-lab-runner-1-1": 3, "n8n-lab-runner-1-2": 2} {
		if got := s.one(t, "n8n_runner_max_concurrency", "runner", runner); got != want {
			t.Errorf("%s limit %v, want %v", runner, got, want)
		}
		if w := s.find("n8n_runner_max_concurrency", "runner", runner)[0].labels["worker"]; w != "n8n-lab-worker-1" {
			t.Errorf("%s paired with %q, want n8n-lab-worker-1", runner, w)
		}
		if got := s.one(t, "n8n_runner_graceful_shutdown_timeout_seconds", "runner", runner); got != 30 {
			t.Errorf("%s shutdown window %v, want the default 30", runner, got)
		}
	}
	checks := map[string]float64{
		"n8n_worker_concurrency":           7,
		"n8n_worker_runner_capacity":       5,
		"n8n_worker_effective_concurrency": 5,
		// LAB_TASK_REQUEST_TIMEOUT's default, read from the worker's env
		"n8n_worker_task_request_timeout_seconds": 60,
		"n8n_worker_task_accept_timeout_seconds":  2,
		// N8N_GRACEFUL_SHUTDOWN_TIMEOUT's default: the lab sets none
		"n8n_worker_graceful_shutdown_timeout_seconds": 30,
	}
	for name, want := range checks {
		if got := s.one(t, name, w1...); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if s.one(t, "n8n_worker_bottleneck", append(w1, "component", "runner")...) != 1 ||
		s.one(t, "n8n_worker_bottleneck", append(w1, "component", "worker")...) != 0 {
		t.Errorf("bottleneck: %s", s.describe("n8n_worker_bottleneck"))
	}
	if got := s.one(t, "n8n_cluster_effective_concurrency"); got != 5 {
		t.Errorf("cluster effective %v, want 5", got)
	}

	eps = upLab(t, map[string]string{"LAB_WORKERS": "2", "LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "3,2"})
	s = scrapeURL(t, must(t, eps, "exporter-metrics"))
	if got := s.one(t, "n8n_worker_runner_capacity", "worker", "n8n-lab-worker-2"); got != 0 {
		t.Errorf("worker 2 capacity %v, want 0", got)
	}
	base := strings.TrimSuffix(must(t, eps, "exporter-metrics"), "metrics")
	for _, page := range []string{base, base + "verdict"} {
		if body := get(t, page); !strings.Contains(body, "n8n-lab-worker-2 has no runner") {
			t.Errorf("%s does not name the worker without runner:\n%s", page, body)
		}
	}
}
