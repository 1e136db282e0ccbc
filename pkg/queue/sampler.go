package queue

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/ticker"
	"github.com/n8n-ceiling/n8n-ceiling/internal/window"
)

// Sampler keeps a sliding window of readings for the job-time estimate.
//
// It runs in the background because Little's law needs a time series: a
// scrape every 15–60 s sees two points, too few to average the active list
// or to tell a stretch the runner was saturated from one it was not.
// Reading once a second between scrapes gives both. The collector's Run
// owns it, beside its CPU, n8n histogram and probe samplers.
type Sampler struct {
	r        *Reader
	interval time.Duration
	slots    atomic.Int64
	limit    atomic.Int64

	mu      sync.Mutex
	gate    func() bool
	samples *window.Window[sample]
	last    Estimate // newest good estimate, held while gated or idle, dropped when the shape changes
	hasLast bool
	clean   []sample        // the newest steady run without a stalled job, held while there is none
	prevOff map[string]bool // the previous reading's unlocked active jobs
	busy    bool            // a reading since the last BusySinceLast had jobs waiting or the gate closed
	err     error
}

// NewSampler samples r every interval and keeps span of readings (and
// the newest before it, where the window starts).
func NewSampler(r *Reader, interval, span time.Duration) *Sampler {
	return &Sampler{r: r, interval: interval, samples: window.New(span, func(s sample) time.Time { return s.at }, nil)}
}

// SetSlots tells the sampler the live workers' concurrency, summed. A
// reading never counts more jobs in service than that: a worker killed
// mid-job leaves its jobs' lock keys behind until they expire (Bull's lock
// duration, QUEUE_WORKER_LOCK_DURATION: 60 s by default), and a new
// worker's jobs lock beside them.
func (s *Sampler) SetSlots(n int) { s.slots.Store(int64(n)) }

// SetRunnerLimit tells the sampler each live worker's runner capacity,
// when all have the same (0: unknown or not the same). Without a gate
// (no probe watches the runners) a reading where a worker holds more jobs
// than that is gated instead: its jobs past the capacity may wait inside
// it for a runner slot (they do, unless part of each job runs outside the
// runner). Jobs waiting in Redis (the workers full, not the runners) then
// do not gate a reading. A gate, which sees the runners, has the last
// word.
func (s *Sampler) SetRunnerLimit(n int) { s.limit.Store(int64(max(0, n))) }

// SetGate installs saturated, asked once per reading: while it returns true
// (the runner is saturated, so jobs hold worker slots waiting for it) the
// readings are not used for the job time and the last estimate is kept.
// Without a gate nothing watches the runners, and jobs waiting in Redis are
// the only sign that they may be full: those readings are not used either.
func (s *Sampler) SetGate(saturated func() bool) {
	s.mu.Lock()
	s.gate = saturated
	s.mu.Unlock()
}

// BusySinceLast reports whether any reading since the previous call had
// jobs waiting in Redis or the gate closed, and starts a new interval.
func (s *Sampler) BusySinceLast() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.busy
	s.busy = false
	return b
}

// Run samples until ctx ends.
func (s *Sampler) Run(ctx context.Context) {
	ticker.Every(ctx, s.interval, func(now time.Time) { s.Step(ctx, now) })
}

// Step takes one reading stamped at, and refreshes the estimate.
func (s *Sampler) Step(ctx context.Context, at time.Time) { _, _ = s.Completed(ctx, at) }

// Completed takes one reading stamped at, as Step does, and returns the
// jobs that had left the queue by then: Bull's job-id counter (once per
// job added) less the jobs still waiting, active, paused or delayed. n8n
// removes a job when it completes or fails, so this is the executions
// completed so far, exact to the reading (n8n's own queue counter
// refreshes every 20 s). A job a killed worker left stalled stays
// uncounted until Bull removes it, which then counts as one completion.
// The CPU sampler's tick calls it, so that one Redis round trip feeds
// both the job time and the CPU demands.
func (s *Sampler) Completed(ctx context.Context, at time.Time) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.interval)
	defer cancel()
	smp, unlocked, err := s.r.sample(ctx, at)
	gated, watched := s.gated()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	if err != nil {
		return 0, err
	}
	smp.stalled = s.stalled(unlocked)
	smp.limit, smp.slots = s.limit.Load(), s.slots.Load()
	if rs := s.samples.Readings(); len(rs) > 0 && !rs[len(rs)-1].sameShape(smp) {
		s.hasLast, s.clean = false, nil // the workers were reshaped: measure anew
	}
	if !watched && smp.limit > 0 {
		gated, watched = smp.runnerFull(), true
	}
	smp.gated = gated || !watched && smp.wait > 0 || smp.stalled
	if n := smp.slots; n > 0 {
		smp.over = max(0, smp.active-n)
		smp.active -= smp.over
	}
	s.busy = s.busy || gated || smp.wait > 0
	s.samples.Add(smp)
	if e, ok := estimate(s.samples.Readings()); ok {
		s.last, s.hasLast = e, true
	}
	if run := cleanRun(s.samples.Readings()); len(run) >= 2 {
		s.clean = run
	}
	return float64(max(0, smp.done())), nil
}

// stalled says whether a job sat in the active list without a lock in
// this reading and the previous one: its worker died. Bull moves such a
// job back to wait, or out of the queue without it completing, which the
// job-id counter would take for a completion. A job that completed between
// a reading's two round trips is unlocked in that reading only. Such
// readings are not used, so no window spans a removal seen beforehand.
func (s *Sampler) stalled(unlocked []string) bool {
	found := false
	next := make(map[string]bool, len(unlocked))
	for _, id := range unlocked {
		found = found || s.prevOff[id]
		next[id] = true
	}
	s.prevOff = next
	return found
}

// gated asks the gate, outside the lock (it reads the probes); watched
// says whether there is one.
func (s *Sampler) gated() (gated, watched bool) {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	return g != nil && g(), g != nil
}

// JobTime returns the newest good estimate, and the last sampling error.
func (s *Sampler) JobTime() (Estimate, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.hasLast, s.err
}
