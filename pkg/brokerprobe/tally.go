package brokerprobe

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type outcome int

// Task outcomes, in label order.
const (
	outcomeDone outcome = iota
	outcomeError
	outcomeCancelled
	outcomeRejected
	outcomeDeferred // the launcher handed the task to the runner it starts
	outcomeLost     // the connection dropped while the task ran
	numOutcomes
)

var outcomeLabels = [numOutcomes]string{"done", "error", "cancelled", "rejected", "deferred", "lost"}

// Rejection reasons are mapped to a fixed set so the label stays bounded
// whatever text a runner sends.
var rejectionLabels = []string{"at_capacity", "offer_expired", "shutting_down", "other"}

func rejectionIndex(reason string) int {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "expired"):
		return 1
	case strings.Contains(r, "capacity"), strings.Contains(r, "no open task slots"):
		return 0
	case strings.Contains(r, "shutting down"):
		return 2
	}
	return 3
}

// Frame directions, in label order.
const (
	toBroker = iota
	toRunner
	numDirections
)

var directionLabels = [numDirections]string{"to_broker", "to_runner"}

// durationBuckets suit task times from 10 ms to 10 min, denser around the
// seconds where Code tasks usually sit.
var durationBuckets = []float64{
	0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 5, 10, 20, 30, 60, 120, 300, 600,
}

// tally holds the probe's counters; it outlives connections.
type tally struct {
	frames      [numDirections]atomic.Uint64
	parseErrors atomic.Uint64

	mu         sync.Mutex
	outcomes   [numOutcomes]uint64
	rejections []uint64
	buckets    []uint64 // per bucket, not cumulative; last is +Inf
	durSum     float64
	durCount   uint64
	recent     recentWindow
}

func newTally() *tally {
	return &tally{
		rejections: make([]uint64, len(rejectionLabels)),
		buckets:    make([]uint64, len(durationBuckets)+1),
	}
}

func (t *tally) outcome(o outcome) {
	t.mu.Lock()
	t.outcomes[o]++
	t.mu.Unlock()
}

func (t *tally) reject(reason string) {
	t.mu.Lock()
	t.outcomes[outcomeRejected]++
	t.rejections[rejectionIndex(reason)]++
	t.mu.Unlock()
}

// finish records a task that ran from accept to done or error.
func (t *tally) finish(o outcome, d time.Duration, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outcomes[o]++
	s := d.Seconds()
	i := 0
	for i < len(durationBuckets) && s > durationBuckets[i] {
		i++
	}
	t.buckets[i]++
	t.durSum += s
	t.durCount++
	t.recent.add(now, d)
}

// tallySnapshot is a consistent copy taken at scrape time.
type tallySnapshot struct {
	frames      [numDirections]uint64
	parseErrors uint64
	outcomes    [numOutcomes]uint64
	rejections  []uint64
	cumulative  map[float64]uint64
	durSum      float64
	durCount    uint64
	recentMean  time.Duration
	recentCount int
}

func (t *tally) snapshot(now time.Time) tallySnapshot {
	s := tallySnapshot{parseErrors: t.parseErrors.Load()}
	for i := range t.frames {
		s.frames[i] = t.frames[i].Load()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s.outcomes = t.outcomes
	s.rejections = append([]uint64(nil), t.rejections...)
	s.cumulative = make(map[float64]uint64, len(durationBuckets))
	var acc uint64
	for i, ub := range durationBuckets {
		acc += t.buckets[i]
		s.cumulative[ub] = acc
	}
	s.durSum, s.durCount = t.durSum, t.durCount
	s.recentMean, s.recentCount = t.recent.mean(now)
	return s
}

// recentWindow keeps the last recentMax task durations so the mean follows
// the current runner setup rather than the probe's whole life.
const (
	recentMax = 1000
	recentAge = 5 * time.Minute
)

type recentSample struct {
	at time.Time
	d  time.Duration
}

type recentWindow struct {
	ring [recentMax]recentSample
	next int
	n    int
}

func (w *recentWindow) add(at time.Time, d time.Duration) {
	w.ring[w.next] = recentSample{at, d}
	w.next = (w.next + 1) % recentMax
	w.n = min(w.n+1, recentMax)
}

// mean averages the samples younger than recentAge.
func (w *recentWindow) mean(now time.Time) (time.Duration, int) {
	var sum time.Duration
	count := 0
	for i := 0; i < w.n; i++ {
		s := w.ring[i]
		if now.Sub(s.at) <= recentAge {
			sum += s.d
			count++
		}
	}
	if count == 0 {
		return 0, 0
	}
	return sum / time.Duration(count), count
}
