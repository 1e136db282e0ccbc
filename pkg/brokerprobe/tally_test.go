package brokerprobe

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// The recent mean follows the last tasks, not the probe's whole life, so a
// runner-limit change between experiment cases shows up within minutes.
func TestRecentTaskMeanIsAWindow(t *testing.T) {
	tl := newTally("test")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 10 {
		tl.finish(outcomeDone, 3*time.Second, t0)
	}
	at := t0.Add(4 * time.Minute)
	for range 10 {
		tl.finish(outcomeDone, time.Second, at)
	}
	if mean, n := tl.recentMean(at); mean != 2*time.Second || n != 20 {
		t.Fatalf("mixed window: %v over %d", mean, n)
	}
	if mean, n := tl.recentMean(t0.Add(6 * time.Minute)); mean != time.Second || n != 10 {
		t.Fatalf("after the 3 s tasks aged out: %v over %d", mean, n)
	}
	for range recentMax {
		tl.finish(outcomeError, 500*time.Millisecond, at)
	}
	if mean, n := tl.recentMean(at); mean != 500*time.Millisecond || n != recentMax {
		t.Fatalf("after %d newer tasks: %v over %d", recentMax, mean, n)
	}
	if mean, n := tl.recentMean(at.Add(time.Hour)); mean != 0 || n != 0 {
		t.Fatalf("idle for an hour: %v over %d", mean, n)
	}
}

func TestDurationBucketsAreUpperInclusive(t *testing.T) {
	tl := newTally("test")
	now := time.Now()
	for _, d := range []time.Duration{10 * time.Millisecond, 1500 * time.Millisecond, 1501 * time.Millisecond, time.Hour} {
		tl.finish(outcomeDone, d, now)
	}
	var m dto.Metric
	if err := tl.duration.Write(&m); err != nil {
		t.Fatal(err)
	}
	c := map[float64]uint64{}
	for _, b := range m.GetHistogram().GetBucket() {
		c[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if c[0.01] != 1 || c[1.25] != 1 || c[1.5] != 2 || c[2] != 3 || c[600] != 3 {
		t.Fatalf("cumulative buckets: %v", c)
	}
}

// When the last 30 s hold at least 20 tasks, the mean is theirs alone: a
// workload that changes from 240 ms tasks to 10 ms ones shows 10 ms at
// once, not a blend of the last five minutes.
func TestRecentTaskMeanFollowsAChangedWorkload(t *testing.T) {
	tl := newTally("test")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 500 {
		tl.finish(outcomeDone, 240*time.Millisecond, t0)
	}
	now := t0.Add(2 * time.Minute)
	for i := range 19 {
		tl.finish(outcomeDone, 10*time.Millisecond, now.Add(-time.Duration(i)*time.Second))
	}
	if mean, n := tl.recentMean(now); n != 519 || mean <= 200*time.Millisecond {
		t.Fatalf("19 fresh tasks are too few to stand alone: %v over %d", mean, n)
	}
	tl.finish(outcomeDone, 10*time.Millisecond, now)
	if mean, n := tl.recentMean(now); mean != 10*time.Millisecond || n != 20 {
		t.Fatalf("20 fresh tasks: %v over %d, want 10ms over 20", mean, n)
	}
}
