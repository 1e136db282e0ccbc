package brokerprobe

import (
	"testing"
	"time"
)

// The recent mean follows the last tasks, not the probe's whole life, so a
// runner-limit change between experiment cases shows up within minutes.
func TestRecentTaskMeanIsAWindow(t *testing.T) {
	tl := newTally()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 10 {
		tl.finish(outcomeDone, 3*time.Second, t0)
	}
	at := t0.Add(4 * time.Minute)
	for range 10 {
		tl.finish(outcomeDone, time.Second, at)
	}
	if s := tl.snapshot(at); s.recentMean != 2*time.Second || s.recentCount != 20 {
		t.Fatalf("mixed window: %v over %d", s.recentMean, s.recentCount)
	}
	if s := tl.snapshot(t0.Add(6 * time.Minute)); s.recentMean != time.Second || s.recentCount != 10 {
		t.Fatalf("after the 3 s tasks aged out: %v over %d", s.recentMean, s.recentCount)
	}
	for range recentMax {
		tl.finish(outcomeError, 500*time.Millisecond, at)
	}
	if s := tl.snapshot(at); s.recentMean != 500*time.Millisecond || s.recentCount != recentMax {
		t.Fatalf("after %d newer tasks: %v over %d", recentMax, s.recentMean, s.recentCount)
	}
	if s := tl.snapshot(at.Add(time.Hour)); s.recentMean != 0 || s.recentCount != 0 {
		t.Fatalf("idle for an hour: %v over %d", s.recentMean, s.recentCount)
	}
}

func TestDurationBucketsAreUpperInclusive(t *testing.T) {
	tl := newTally()
	now := time.Now()
	for _, d := range []time.Duration{10 * time.Millisecond, 1500 * time.Millisecond, 1501 * time.Millisecond, time.Hour} {
		tl.finish(outcomeDone, d, now)
	}
	c := tl.snapshot(now).cumulative
	if c[0.01] != 1 || c[1.25] != 1 || c[1.5] != 2 || c[2] != 3 || c[600] != 3 {
		t.Fatalf("cumulative buckets: %v", c)
	}
}
