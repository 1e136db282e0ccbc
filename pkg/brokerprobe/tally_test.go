package brokerprobe

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// The recent mean follows the last tasks, not the probe's whole life: the
// last 30 s when tasks ended in them, else the last five minutes.
func TestRecentTaskMeanIsAWindow(t *testing.T) {
	tl := newTally("test", 0)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 10 {
		tl.finish(outcomeDone, 3*time.Second, t0)
	}
	at := t0.Add(4 * time.Minute)
	for range 10 {
		tl.finish(outcomeDone, time.Second, at)
	}
	if mean, n := tl.recentMean(at); mean != time.Second || n != 10 {
		t.Fatalf("tasks in the last 30 s: %v over %d, want theirs alone", mean, n)
	}
	if mean, n := tl.recentMean(t0.Add(5 * time.Minute)); mean != 2*time.Second || n != 20 {
		t.Fatalf("none in the last 30 s: %v over %d, want the five minutes' blend", mean, n)
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
	tl := newTally("test", 0)
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

// When tasks ended in the last 30 s, the mean is theirs alone: a workload
// that changes from 1 s tasks to 15 s ones (5 slots: one ends every 3 s)
// shows 15 s once its first tasks are 30 s old, not a blend of the last
// five minutes (1.4 s here, a ceiling ten times too high).
func TestRecentTaskMeanFollowsAChangedWorkload(t *testing.T) {
	tl := newTally("test", 0)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		tl.finish(outcomeDone, time.Second, t0.Add(time.Duration(i)*time.Second/5))
	}
	switched := t0.Add(20 * time.Second)
	first := switched.Add(15 * time.Second)
	tl.finish(outcomeDone, 15*time.Second, first)
	if mean, n := tl.recentMean(first); n != 76 || mean >= 2*time.Second {
		t.Fatalf("as the first 15 s task ends, the 1 s tasks of the last 30 s count too: %v over %d", mean, n)
	}
	for i := 1; i < 10; i++ {
		tl.finish(outcomeDone, 15*time.Second, first.Add(time.Duration(i)*3*time.Second))
	}
	if mean, n := tl.recentMean(first.Add(27 * time.Second)); mean != 15*time.Second || n != 10 {
		t.Fatalf("after the switch: %v over %d, want 15s over the 10 tasks of the last 30 s", mean, n)
	}
}

// A probe given a demand window of 15 s means the tasks of those 15 s
// alone: a workload that changed 20 s ago shows only its new tasks.
func TestRecentTaskMeanFollowsTheWindowGiven(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tl := newTallyWith(t0, 15*time.Second)
	at := t0.Add(20 * time.Second)
	tl.finish(outcomeDone, 10*time.Millisecond, at)
	if mean, n := tl.recentMean(at); mean != 10*time.Millisecond || n != 1 {
		t.Fatalf("15 s window, 1 s tasks 20 s ago: %v over %d, want the new task alone", mean, n)
	}
	if mean, n := newTallyWith(t0, 0).recentMean(at); mean != time.Second || n != 10 {
		t.Fatalf("default window: %v over %d, want the 1 s tasks of the last 30 s", mean, n)
	}
}

// newTallyWith is a tally of ten 1 s tasks that ended at t0.
func newTallyWith(t0 time.Time, fresh time.Duration) *tally {
	tl := newTally("test", fresh)
	for range 10 {
		tl.finish(outcomeDone, time.Second, t0)
	}
	return tl
}
