package e2e

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// TestProbeCountsWhatTheRunnerRuns: worker 15, 20 closed-loop VUs, 1 s
// tasks, through the broker probe. The probe sees the runner's real limit
// and task time, and costs no throughput against a direct run back to back.
// Limit 5 binds at the runner, limit 20 at the worker; the runner-limit
// experiment runs limits 2, 10 and 20 through the probe as well.
func TestProbeCountsWhatTheRunnerRuns(t *testing.T) {
	for _, limit := range []int{5, 20} {
		env := map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": strconv.Itoa(limit)}
		eps := upLab(t, env)
		direct := lab.ClosedLoop(context.Background(), must(t, eps, "webhook"), lab.BenchBody(1000, 0), 20, 10*time.Second, 30*time.Second)

		env["LAB_PROBE"] = "1"
		eps = upLab(t, env)
		metrics := must(t, eps, "probe-metrics-1")
		ctx, cancel := context.WithCancel(context.Background())
		samples := sampleRunning(ctx, t, metrics, 12*time.Second)
		before := scrapeURL(t, metrics)
		via := lab.ClosedLoop(context.Background(), must(t, eps, "webhook"), lab.BenchBody(1000, 0), 20, 10*time.Second, 30*time.Second)
		after := scrapeURL(t, metrics)
		cancel()
		running := <-samples

		probe := []string{"probe", "runner-1-1"}
		tasks := after.one(t, "n8n_runner_task_duration_seconds_count", probe...) - before.one(t, "n8n_runner_task_duration_seconds_count", probe...)
		mean := (after.one(t, "n8n_runner_task_duration_seconds_sum", probe...) - before.one(t, "n8n_runner_task_duration_seconds_sum", probe...)) / tasks
		inferred := after.one(t, "n8n_runner_inferred_max_concurrency", probe...)
		want := float64(min(limit, 15))
		t.Logf("limit %d: direct %.2f/s, via probe %.2f/s (ratio %.3f); running %v; inferred %v; mean task %.3fs over %v tasks",
			limit, direct.PerSec, via.PerSec, via.PerSec/direct.PerSec, running, inferred, mean, tasks)

		if direct.Failed+via.Failed != 0 {
			t.Errorf("limit %d: failures direct %v via %v", limit, direct.Errors, via.Errors)
		}
		if r := via.PerSec / direct.PerSec; math.Abs(r-1) > 0.03 {
			t.Errorf("limit %d: throughput via probe is %.3f× direct, want within 3%%", limit, r)
		}
		if limit <= 15 && inferred != float64(limit) {
			t.Errorf("limit %d: inferred max concurrency %v", limit, inferred)
		}
		switch {
		case limit <= 15 && !saturatedAt(running, want):
			t.Errorf("limit %d: tasks running sampled %v, want %v once saturated (−1 at sampling edges)", limit, running, want)
		case limit > 15 && !workersShare(running, want):
			// Worker-bound: each job also spends a few per cent of its slot
			// outside the runner, so a sample may catch fewer; never more.
			t.Errorf("limit %d: tasks running sampled %v, want median and max %v (the worker's share)", limit, running, want)
		}
		if mean < 1.0 || mean > 1.2 {
			t.Errorf("limit %d: mean task %.3fs, want 1.0–1.2 s", limit, mean)
		}
	}
}

// saturatedAt reports whether the samples (in time order) reach want within
// their first half and then stay at it, −1 where a sample falls between one
// task ending and the next starting. The samples before are the ramp after
// the runner connected.
func saturatedAt(samples []float64, want float64) bool {
	first := slices.Index(samples, want)
	if first < 0 || first > len(samples)/2 {
		return false
	}
	for _, r := range samples[first:] {
		if r < want-1 || r > want {
			return false
		}
	}
	return true
}

// workersShare reports whether the samples never exceed want and their
// median is want.
func workersShare(samples []float64, want float64) bool {
	if len(samples) == 0 {
		return false
	}
	sorted := slices.Sorted(slices.Values(samples))
	return sorted[len(sorted)-1] == want && sorted[len(sorted)/2] == want
}

// sampleRunning reads n8n_runner_tasks_running once a second, starting after
// the warm-up, until ctx ends; it returns the samples in time order.
func sampleRunning(ctx context.Context, t *testing.T, url string, skip time.Duration) <-chan []float64 {
	out := make(chan []float64, 1)
	go func() {
		var got []float64
		select {
		case <-ctx.Done():
		case <-time.After(skip):
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for ctx.Err() == nil {
				s := scrapeQuiet(url)
				if v, ok := s["runner-1-1"]; ok {
					got = append(got, v)
				}
				select {
				case <-ctx.Done():
				case <-tick.C:
				}
			}
		}
		out <- got
	}()
	return out
}

func TestSaturatedAt(t *testing.T) {
	cases := []struct {
		samples []float64
		want    float64
		ok      bool
	}{
		{[]float64{10, 12, 14, 15, 15, 14, 15, 15, 15, 15}, 15, true}, // ramp, then at the limit
		{[]float64{5, 5, 4, 5, 5}, 5, true},
		{[]float64{5, 5, 3, 5, 5}, 5, false},                // a dip of 2 is not a sampling edge
		{[]float64{2, 3, 4, 4, 4, 4, 4, 5, 5, 5}, 5, false}, // reached too late
		{[]float64{4, 4, 4}, 5, false},                      // never reached
		{[]float64{5, 6, 5}, 5, false},                      // above the limit
	}
	for _, c := range cases {
		if got := saturatedAt(c.samples, c.want); got != c.ok {
			t.Errorf("saturatedAt(%v, %v) = %v, want %v", c.samples, c.want, got, c.ok)
		}
	}
	share := []float64{14, 14, 14, 15, 14, 15, 14, 14, 15, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 11, 14, 15}
	if !workersShare(share, 15) || workersShare(append(share, 16), 15) || workersShare([]float64{14, 14, 15}, 15) {
		t.Error("workersShare: want the median at 15 and nothing above it")
	}
}
