package queue

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Sampler keeps a sliding window of readings for the job-time estimate.
//
// It runs in the background because Little's law needs a time series: a
// scrape every 15–60 s sees two points, too few to average the active list
// or to tell a saturated stretch from an unsaturated one. Reading once a
// second between scrapes gives both. Besides it, only the collector's n8n
// histogram sampler runs between scrapes; the rest is read at scrape time.
type Sampler struct {
	r        *Reader
	interval time.Duration
	window   time.Duration
	slots    atomic.Int64

	mu      sync.Mutex
	gate    func() bool
	samples []sample
	last    Estimate // newest good estimate, held while saturated or idle
	hasLast bool
	busy    bool // a reading since the last BusySinceLast had jobs waiting or the gate closed
	err     error
}

// NewSampler samples r every interval and keeps window of readings.
func NewSampler(r *Reader, interval, window time.Duration) *Sampler {
	return &Sampler{r: r, interval: interval, window: window}
}

// SetSlots tells the sampler the cluster's worker concurrency, so a
// reading with that many active jobs counts as saturated.
func (s *Sampler) SetSlots(n int) { s.slots.Store(int64(n)) }

// SetGate installs saturated, asked once per reading: while it returns true
// (the runner is saturated, so jobs hold worker slots waiting for it) the
// readings are not used for the job time and the last estimate is kept.
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
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		s.Step(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Step takes one reading stamped at, and refreshes the estimate.
func (s *Sampler) Step(ctx context.Context, at time.Time) {
	ctx, cancel := context.WithTimeout(ctx, s.interval)
	defer cancel()
	smp, err := s.r.sample(ctx, at)
	gated := s.gated()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	if err != nil {
		return
	}
	smp.gated = gated
	s.busy = s.busy || gated || smp.wait > 0
	s.samples = append(s.samples, smp)
	for len(s.samples) > 0 && at.Sub(s.samples[0].at) > s.window {
		s.samples = s.samples[1:]
	}
	if e, ok := estimate(s.samples, s.slots.Load()); ok {
		s.last, s.hasLast = e, true
	}
}

// gated asks the gate, outside the lock (it reads the probes).
func (s *Sampler) gated() bool {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	return g != nil && g()
}

// JobTime returns the newest good estimate, and the last sampling error.
func (s *Sampler) JobTime() (Estimate, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.hasLast, s.err
}
