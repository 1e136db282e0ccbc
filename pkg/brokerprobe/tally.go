package brokerprobe

import (
	"cmp"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

type outcome int

// Task outcomes, in label order.
const (
	outcomeDone outcome = iota
	outcomeError
	outcomeCancelled
	outcomeRejected
	outcomeDeferred      // the launcher handed the task to the runner it starts
	outcomeLost          // the connection dropped while the task ran
	outcomeAcceptTimeout // the broker cancelled it before the runner answered its accept
	numOutcomes
)

var outcomeLabels = [numOutcomes]string{"done", "error", "cancelled", "rejected", "deferred", "lost", "accept_timeout"}

// Rejection reasons are mapped to a fixed set so the label stays bounded
// whatever text a runner sends: the first class whose words the reason
// holds (case-insensitive), else the last, "other". Its label order is
// the counters' order.
var rejectionClasses = []struct {
	label string
	words []string
}{
	{"offer_expired", []string{"expired"}},
	{"at_capacity", []string{"capacity", "no open task slots"}},
	{"shutting_down", []string{"shutting down"}},
	{"other", nil},
}

var rejectionLabels = func() []string {
	out := make([]string, len(rejectionClasses))
	for i, c := range rejectionClasses {
		out[i] = c.label
	}
	return out
}()

func rejectionIndex(reason string) int {
	r := strings.ToLower(reason)
	for i, c := range rejectionClasses {
		for _, w := range c.words {
			if strings.Contains(r, w) {
				return i
			}
		}
	}
	return len(rejectionClasses) - 1
}

// Reasons for the broker's 1002 closes, a fixed set: n8n sends no reason
// text, so the probe names the cause only when it saw it.
var unresponsiveLabels = []string{"runner-unresponsive", "other"}

func unresponsiveIndex(afterAcceptTimeouts bool) int {
	if afterAcceptTimeouts {
		return 0
	}
	return 1
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

// handoffBuckets suit hand-offs from a millisecond (an idle broker) to the
// seconds a slot waits for a request below saturation.
var handoffBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// tally holds the probe's counters and task-time histogram; it outlives
// connections. They are client_golang metrics with the probe name as a
// constant label, each label value resolved once so the relay's hot path
// is one atomic add.
type tally struct {
	frames      [numDirections]prometheus.Counter
	parseErrors prometheus.Counter
	outcomes    [numOutcomes]prometheus.Counter
	rejections  []prometheus.Counter
	closes      []prometheus.Counter // the broker's 1002 closes, by unresponsiveLabels
	drains      prometheus.Counter
	duration    prometheus.Histogram
	handoff     prometheus.Histogram
	metrics     []prometheus.Collector // everything above, for Describe and Collect

	mu       sync.Mutex
	recent   recentWindow
	handoffs recentWindow
}

// newTally builds the counters of one probe; fresh is the recent mean's
// window while tasks end (0: RecentFresh).
func newTally(probe string, fresh time.Duration) *tally {
	l := prometheus.Labels{"probe": probe}
	opts := func(name, help string) prometheus.CounterOpts {
		return prometheus.CounterOpts{Name: name, Help: help, ConstLabels: l}
	}
	frames := prometheus.NewCounterVec(opts(metricname.RunnerFrames,
		"Websocket data messages relayed, by direction."), []string{"direction"})
	parseErrors := prometheus.NewCounter(opts(metricname.RunnerFrameParseErrors,
		"Relayed messages whose first 4 KiB did not parse as a task-runner message; they were forwarded unchanged."))
	tasks := prometheus.NewCounterVec(opts(metricname.RunnerTasks,
		"Tasks that reached an outcome on the runner's websocket."), []string{"outcome"})
	rejections := prometheus.NewCounterVec(opts(metricname.RunnerTaskRejections,
		"Task offers accepted by the broker but rejected by the runner, by reason class."), []string{"reason"})
	closes := prometheus.NewCounterVec(opts(metricname.RunnerUnresponsiveCloses,
		"Connections the broker closed with 1002, as n8n closes a runner it reports unresponsive or that missed a heartbeat; runner-unresponsive when the probe saw n8n's 3 consecutive accept timeouts first."), []string{"reason"})
	drains := prometheus.NewCounter(opts(metricname.RunnerDrains,
		"Connections the broker told to drain (broker:drain), as n8n does when it shuts down."))
	duration := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:        metricname.RunnerTaskDuration,
		Help:        "Runner task time from runner:taskaccepted to runner:taskdone or runner:taskerror.",
		ConstLabels: l,
		Buckets:     durationBuckets,
	})
	handoff := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: metricname.RunnerTaskHandoff,
		Help: "Time a slot freed by runner:taskdone or runner:taskerror, while the runner had no open offer, took to its next " +
			"runner:taskaccepted, when the broker matched the offer the runner sent for that slot: the broker's match and the " +
			"runner's accept, plus the wait for a request when none was waiting.",
		ConstLabels: l,
		Buckets:     handoffBuckets,
	})
	fresh = cmp.Or(fresh, RecentFresh)
	t := &tally{parseErrors: parseErrors, drains: drains, duration: duration, handoff: handoff,
		recent: recentWindow{fresh: fresh}, handoffs: recentWindow{fresh: fresh},
		metrics: []prometheus.Collector{frames, parseErrors, tasks, rejections, closes, drains, duration, handoff}}
	for i, v := range directionLabels {
		t.frames[i] = frames.WithLabelValues(v)
	}
	for i, v := range outcomeLabels {
		t.outcomes[i] = tasks.WithLabelValues(v)
	}
	for _, v := range rejectionLabels {
		t.rejections = append(t.rejections, rejections.WithLabelValues(v))
	}
	for _, v := range unresponsiveLabels {
		t.closes = append(t.closes, closes.WithLabelValues(v))
	}
	return t
}

func (t *tally) outcome(o outcome) { t.outcomes[o].Inc() }

func (t *tally) drain() { t.drains.Inc() }

func (t *tally) unresponsiveClose(afterAcceptTimeouts bool) {
	t.closes[unresponsiveIndex(afterAcceptTimeouts)].Inc()
}

func (t *tally) reject(reason string) {
	t.outcomes[outcomeRejected].Inc()
	t.rejections[rejectionIndex(reason)].Inc()
}

// finish records a task that ran from accept to done or error.
func (t *tally) finish(o outcome, d time.Duration, now time.Time) {
	t.outcomes[o].Inc()
	t.duration.Observe(d.Seconds())
	t.mu.Lock()
	t.recent.add(now, d)
	t.mu.Unlock()
}

// handedOff records a slot's hand-off from one task to the next.
func (t *tally) handedOff(now time.Time, d time.Duration) {
	t.handoff.Observe(d.Seconds())
	t.mu.Lock()
	t.handoffs.add(now, d)
	t.mu.Unlock()
}

// count reads an outcome counter.
func (t *tally) count(o outcome) uint64 { return counterValue(t.outcomes[o]) }

// closed is the broker's 1002 closes, whatever their reason.
func (t *tally) closed() uint64 {
	var n uint64
	for _, c := range t.closes {
		n += counterValue(c)
	}
	return n
}

// counterValue reads a counter.
func counterValue(c prometheus.Counter) uint64 {
	var m dto.Metric
	_ = c.Write(&m)
	return uint64(m.GetCounter().GetValue())
}

// recentMean is the mean task time of the recent window at now.
func (t *tally) recentMean(now time.Time) (time.Duration, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.recent.mean(now)
}

// recentHandoff is the mean hand-off of the recent window at now.
func (t *tally) recentHandoff(now time.Time) (time.Duration, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.handoffs.mean(now)
}

func (t *tally) describe(ch chan<- *prometheus.Desc) {
	for _, m := range t.metrics {
		m.Describe(ch)
	}
}

func (t *tally) collect(ch chan<- prometheus.Metric) {
	for _, m := range t.metrics {
		m.Collect(ch)
	}
}

// recentWindow keeps the last recentMax task durations so the mean follows
// the current load rather than the probe's whole life: the tasks that
// ended in the last fresh (RecentFresh, or the exporter's demand window),
// else, after a quiet stretch, those of the last RecentAge. Each task's
// time is measured whole, so a few tasks give the exact mean of what ran:
// a workload that changes (1 s tasks, then 15 s ones) shows its own mean
// once fresh has passed since its first task ended, not a blend for
// minutes.
const (
	recentMax = 1000
	// RecentFresh and RecentAge are the two windows of the task mean; the
	// exporter's reads of a probe sidecar's histogram use the same, with
	// its demand window in place of RecentFresh.
	RecentFresh = 30 * time.Second
	RecentAge   = 5 * time.Minute
)

type recentSample struct {
	at time.Time
	d  time.Duration
}

type recentWindow struct {
	fresh time.Duration
	ring  [recentMax]recentSample
	next  int
	n     int
}

func (w *recentWindow) add(at time.Time, d time.Duration) {
	w.ring[w.next] = recentSample{at, d}
	w.next = (w.next + 1) % recentMax
	w.n = min(w.n+1, recentMax)
}

// mean averages the samples no older than fresh when there are any, else
// those no older than RecentAge.
func (w *recentWindow) mean(now time.Time) (time.Duration, int) {
	sum, count := w.since(now, w.fresh)
	if count == 0 {
		sum, count = w.since(now, RecentAge)
	}
	if count == 0 {
		return 0, 0
	}
	return sum / time.Duration(count), count
}

// since sums the samples no older than age.
func (w *recentWindow) since(now time.Time, age time.Duration) (sum time.Duration, count int) {
	for i := 0; i < w.n; i++ {
		if s := w.ring[i]; now.Sub(s.at) <= age {
			sum += s.d
			count++
		}
	}
	return sum, count
}
