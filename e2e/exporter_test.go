package e2e

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

const mib = 1 << 20

// TestExporterMemory: Buffers held in Code tasks show in the runner's
// working set, as docker stats shows it, while the worker's barely moves; a
// task that pushes the runner past its limit is seen as an OOM kill.
func TestExporterMemory(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "10", "LAB_RUNNER_MEMORY": "2g"})
	metrics, webhook := must(t, eps, "exporter-metrics"), must(t, eps, "webhook")
	runner, workerLabels := []string{"container", "n8n-lab-runner-1-1"}, []string{"container", "n8n-lab-worker-1"}
	first := scrapeURL(t, metrics)
	before, workerBefore := first.one(t, "n8n_container_memory_working_set_bytes", runner...), first.one(t, "n8n_container_memory_working_set_bytes", workerLabels...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errs := burst(ctx, webhook, 5, lab.BenchBody(15000, 200))
	time.Sleep(9 * time.Second) // all five hold their Buffers by now
	s := scrapeURL(t, metrics)
	ws := s.one(t, "n8n_container_memory_working_set_bytes", runner...)
	stats := dockerStatsBytes(t, "n8n-lab-runner-1-1")
	worker := s.one(t, "n8n_container_memory_working_set_bytes", workerLabels...)
	t.Logf("runner working set %.0f MiB (before %.0f, docker stats %.0f), worker %.0f MiB (before %.0f)", ws/mib, before/mib, stats/mib, worker/mib, workerBefore/mib)
	if ws-before < 900*mib {
		t.Errorf("runner working set rose by %.0f MiB, want ≥ 900", (ws-before)/mib)
	}
	if d := (ws - stats) / stats; d > 0.05 || d < -0.05 {
		t.Errorf("exporter %.0f MiB vs docker stats %.0f MiB: %.1f%% apart", ws/mib, stats/mib, 100*d)
	}
	// The Buffers are the runner's: the worker, which only holds the five
	// executions, rises by less than a third of the runner's 900 MiB (a
	// fresh n8n 2.41.1 worker already holds about 500 MiB, 2.23.2's less).
	if rise := worker - workerBefore; rise >= 300*mib {
		t.Errorf("worker working set rose by %.0f MiB (to %.0f), want < 300", rise/mib, worker/mib)
	}
	if limit := s.one(t, "n8n_container_memory_limit_bytes", runner...); limit != 2<<30 {
		t.Errorf("runner limit %v, want 2 GiB", limit)
	}
	// A sixth task sized to overflow the limit: the 400 MiB of the issue plus
	// whatever headroom is left, so it overflows whatever the runner's base is.
	extra := int((2<<30-ws)/mib) + 400
	sixth := burst(ctx, webhook, 1, lab.BenchBody(15000, extra))
	var killed bool
	for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline) && !killed; time.Sleep(time.Second) {
		s = scrapeURL(t, metrics)
		killed = s.one(t, "n8n_container_oom_killed", runner...) == 1 || s.one(t, "n8n_container_restarts", runner...) > 0
	}
	if !killed {
		t.Errorf("a %d MiB sixth task over a 2 GiB limit: oom_killed %v, restarts %v", extra,
			s.one(t, "n8n_container_oom_killed", runner...), s.one(t, "n8n_container_restarts", runner...))
	}
	failed := countErrs(errs) + countErrs(sixth)
	t.Logf("sixth task of %d MiB: oom seen %v; %d of 6 requests failed", extra, killed, failed)
	if failed == 0 {
		t.Error("the OOM kill cost no request; the tasks cannot have run in the runner")
	}
}

// TestExporterQueueDepth: 30 requests held against a worker of 15 leave
// jobs waiting in Redis, seen at once rather than n8n's 20 s refresh. The
// 6 s tasks all still run at the reading, 4 s in; the backlog they leave
// the next test (30 tasks on 10 slots) is 18 s of runner time.
func TestExporterQueueDepth(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "10"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	errs := burst(ctx, must(t, eps, "webhook"), 30, lab.BenchBody(6000, 0))
	time.Sleep(4 * time.Second)
	s := scrapeURL(t, must(t, eps, "exporter-metrics"))
	waiting, active := s.one(t, "n8n_queue_jobs", "state", "waiting"), s.one(t, "n8n_queue_jobs", "state", "active")
	t.Logf("30 requests held: waiting %v, active %v", waiting, active)
	// Bull's active list holds the worker's 15 jobs, plus any a worker
	// killed by an earlier lab change left stalled there.
	if waiting <= 0 || active < 15 {
		t.Errorf("waiting %v active %v, want waiting > 0 and active ≥ 15", waiting, active)
	}
	cancel()
	countErrs(errs)
}

// TestExporterKeepsSecrets: no secret of the lab reaches /metrics, / or the
// exporter's log, and no metric name is one that n8n itself serves. Its
// lab is the test before's with the probe added.
func TestExporterKeepsSecrets(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_PROBE": "1", "LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "10"})
	metricsURL := must(t, eps, "exporter-metrics")
	lab.ClosedLoop(context.Background(), must(t, eps, "webhook"), lab.BenchBody(200, 0), 5, 0, 3*time.Second)
	base := strings.TrimSuffix(metricsURL, "metrics")
	exposed := get(t, metricsURL) + get(t, base) + get(t, base+"verdict")
	logBytes, err := os.ReadFile(filepath.Join(labState(), "exporter.log"))
	if err != nil {
		t.Fatal(err)
	}
	exposed += string(logBytes)
	for name, secret := range labSecrets(t) {
		if len(secret) < 8 {
			t.Fatalf("secret %s is too short to search for", name)
		}
		if strings.Contains(exposed, secret) {
			t.Errorf("%s appears in the exporter's output", name)
		}
	}

	ours := scrapeURL(t, metricsURL).names()
	for _, ep := range []string{"main-metrics", "worker-metrics-1"} {
		for name := range scrapeURL(t, must(t, eps, ep)).names() {
			if ours[name] && strings.HasPrefix(name, "n8n_") {
				t.Errorf("metric %s is also served by n8n's %s", name, ep)
			}
		}
	}
}

// TestExporterTopology: the exporter reads the limits from Docker and names
// the runner as the bottleneck; a second worker without a runner shows up
// with capacity 0 on /metrics and by name on / and /verdict, which say
// nothing of completed jobs kept (the lab's main keeps 1000, the kube
// lab's none: TestExporterShowsTwoRunnerBoundWorkers). It runs last here, so that
// TestLabShapes (next in file order) finds its lab with one worker change
// fewer; the bottleneck is read from this shape's own measurements, not
// the earlier tests' (the Redis figures restart with a reshape).
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
		body := get(t, page)
		if !strings.Contains(body, "n8n-lab-worker-2 has no runner") {
			t.Errorf("%s does not name the worker without runner:\n%s", page, body)
		}
		// The lab's main keeps LAB_KEEP_COMPLETED (1000) completed jobs.
		if strings.Contains(body, "keeps no completed job") {
			t.Errorf("%s says main keeps no completed job:\n%s", page, body)
		}
	}
}

func labState() string {
	if s := os.Getenv("LAB_STATE"); s != "" {
		return s
	}
	return "/var/lib/n8n-ceiling-lab"
}

// labSecrets reads the lab's secrets file; values are compared, never logged.
func labSecrets(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join(labState(), "secrets.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	if len(out) != 3 {
		t.Fatalf("want 3 secrets, read %d", len(out))
	}
	return out
}

// burst sends n concurrent requests and returns a channel of their errors.
func burst(ctx context.Context, url string, n int, body []byte) <-chan error {
	out := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out <- lab.CallBench(ctx, httpClient, url, body)
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

// countErrs waits for a burst to finish and counts its failures.
func countErrs(errs <-chan error) int {
	n := 0
	for err := range errs {
		if err != nil {
			n++
		}
	}
	return n
}
