package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// TestProbeCountsThroughAcceptTimeouts: runner limit 3 and nine concurrent
// Code tasks of about 3 s of CPU each (spin_m 400). Each task blocks the
// runner's event loop past the broker's 2 s accept window, so the broker
// cancels accepts that the runner answers late and then frees silently
// (seen on n8n 2.41.1: five in one run). The probe's running count never
// exceeds the limit, returns to 0 once idle, and the inferred limit stays 3.
//
// It runs on 2.41.1 whatever the lab's version, in make e2e only (make
// e2e-compat, on 2.23.2, leaves it out rather than switch the lab's
// version twice): on 2.23.2 the same load left the count at 2 once idle in
// two of three runs with no accept timeout on the wire, a path the probe
// does not follow yet.
func TestProbeCountsThroughAcceptTimeouts(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_N8N_VERSION": "2.41.1", "LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "3", "LAB_PROBE": "1"})
	metrics, webhook := must(t, eps, "probe-metrics-1"), must(t, eps, "webhook")
	probe := []string{"probe", "runner-1-1"}
	before := scrapeURL(t, metrics)

	ctx, stop := context.WithCancel(context.Background())
	samples := sampleRunning(ctx, metrics, 0, 250*time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	client := &http.Client{Timeout: 3 * time.Minute}
	for range 9 {
		wg.Go(func() {
			errs <- lab.CallBench(context.Background(), client, webhook, []byte(`{"sleep_ms":0,"spin_m":400}`))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a CPU-heavy request failed: %v", err)
		}
	}
	time.Sleep(3 * time.Second) // idle: every slot freed, the runner offering again
	stop()
	running := <-samples
	after := scrapeURL(t, metrics)

	timeouts := after.one(t, "n8n_runner_tasks_total", append(probe, "outcome", "accept_timeout")...) -
		before.one(t, "n8n_runner_tasks_total", append(probe, "outcome", "accept_timeout")...)
	t.Logf("running sampled every 250 ms: %v; accept timeouts %v", running, timeouts)
	if len(running) == 0 || slices.Max(running) > 3 {
		t.Errorf("tasks running %v: want samples, none above the limit 3", running)
	}
	if got := after.one(t, "n8n_runner_tasks_running", probe...); got != 0 {
		t.Errorf("tasks running %v once idle, want 0", got)
	}
	if got := after.one(t, "n8n_runner_inferred_max_concurrency", probe...); got != 3 {
		t.Errorf("inferred max concurrency %v, want 3", got)
	}
	figure(t, "accept timeouts seen", "recorded", timeouts, true)
	// The exporter says what the broker did, with the setting's default.
	page := get(t, strings.TrimSuffix(must(t, eps, "exporter-metrics"), "metrics"))
	i := strings.Index(page, "broker of ")
	if timeouts > 0 && (i < 0 || !strings.Contains(page[i:], "did not accept within N8N_RUNNERS_TASK_ACCEPT_TIMEOUT (2 s)")) {
		t.Fatalf("/ does not name the %v accept timeouts:\n%s", timeouts, page)
	}
	if i >= 0 {
		t.Logf("/ says: %s", strings.SplitN(page[i:], "\n", 2)[0])
	}
}
