package e2e

import (
	"context"
	"math"
	"net/url"
	"os/exec"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// taskSeconds is one 3 s Code task's hold of its runner slot: the sleep
// plus the per-task overhead measuredTaskSeconds carries.
const taskSeconds = 3 + measuredTaskSeconds - 1

// TestTaskRequestWait: worker concurrency 10, one runner slot, 3 s Code
// tasks, N8N_RUNNERS_TASK_REQUEST_TIMEOUT 8 s.
//
//   - At 2 VUs one request runs while the other waits for the slot, and
//     none times out. The wait the closed loop measured (its mean latency
//     less the task's 3.06 s) and the exporter's published wait (polled
//     every second over the same window) agree within 25 %.
//   - At 6 VUs five wait behind the one slot, and the fourth in line
//     fails at 8 s. Debian's Prometheus, scraping the exporter and
//     evaluating the shipped rules every second, fires
//     N8nTaskRequestsWillTimeOut before the closed loop sees its first
//     failure.
func TestTaskRequestWait(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_PROBE": "1", "LAB_WORKER_CONCURRENCY": "10", "LAB_RUNNER_LIMITS": "1", "LAB_TASK_REQUEST_TIMEOUT": "8"})
	metrics, webhook := must(t, eps, "exporter-metrics"), must(t, eps, "webhook")
	body := lab.BenchBody(3000, 0)
	const warmup, window = 10 * time.Second, 30 * time.Second

	ctx, cancel := context.WithCancel(context.Background())
	polled := pollWait(ctx, metrics, warmup)
	res := lab.ClosedLoop(context.Background(), webhook, body, 2, warmup, window)
	cancel()
	published := mean(<-polled)
	measured := res.MeanLatency().Seconds() - taskSeconds
	t.Logf("2 VUs: %d ok, %d failed, mean latency %v: measured wait %.2f s, published %.2f s", res.OK, res.Failed, res.MeanLatency().Round(time.Millisecond), measured, published)
	if res.Failed != 0 || res.OK == 0 {
		t.Fatalf("2 VUs: %d ok, %d failed (%v), want none failed", res.OK, res.Failed, res.Errors)
	}
	ok := math.Abs(published-measured) <= 0.25*measured
	figure(t, "2 VUs: published ÷ measured task-request wait", "1 ± 0.25", published/measured, ok)
	if !ok {
		t.Errorf("published wait %.2f s, measured %.2f s: want within 25 %%", published, measured)
	}

	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install the Debian package prometheus (make deps does)")
	}
	prom := startPrometheus(t, promBin, map[string]string{"exporter": metrics})
	prom.waitUp(t, 1)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	fired := firstFiring(ctx, prom, "N8nTaskRequestsWillTimeOut")
	start := time.Now()
	res = lab.ClosedLoop(context.Background(), webhook, body, 6, 0, 25*time.Second)
	cancel()
	at := <-fired
	t.Logf("6 VUs: %d ok, %d failed, first failure after %v (%v); alert firing after %v",
		res.OK, res.Failed, res.FirstFailed.Sub(start).Round(time.Millisecond), res.Errors, at.Sub(start).Round(time.Millisecond))
	switch {
	case res.FirstFailed.IsZero():
		t.Errorf("6 VUs behind one slot with an 8 s timeout: no request failed")
	case at.IsZero():
		t.Errorf("N8nTaskRequestsWillTimeOut never fired")
	case !at.Before(res.FirstFailed):
		t.Errorf("N8nTaskRequestsWillTimeOut fired %v after the first failure", at.Sub(res.FirstFailed))
	}
}

// pollWait reads n8n_worker_task_request_wait_seconds every second after
// skip until ctx ends, and sends the readings.
func pollWait(ctx context.Context, metrics string, skip time.Duration) <-chan []float64 {
	out := make(chan []float64, 1)
	go func() {
		var got []float64
		defer func() { out <- got }()
		select {
		case <-ctx.Done():
			return
		case <-time.After(skip):
		}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if s, err := fetchScrape(metrics); err == nil {
				if w := s.find("n8n_worker_task_request_wait_seconds"); len(w) == 1 {
					got = append(got, w[0].value)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// firstFiring polls Prometheus every 250 ms and sends when alert was
// first firing (zero if it never was before ctx ended).
func firstFiring(ctx context.Context, p *promServer, alert string) <-chan time.Time {
	out := make(chan time.Time, 1)
	q := url.Values{"query": {`ALERTS{alertname="` + alert + `",alertstate="firing"}`}}
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if r, err := p.query("/api/v1/query", q); err == nil && len(r) > 0 {
				out <- time.Now()
				return
			}
			select {
			case <-ctx.Done():
				out <- time.Time{}
				return
			case <-tick.C:
			}
		}
	}()
	return out
}
