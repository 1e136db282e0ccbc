package collector

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// sharedGather runs one gather for every request that asks while it is in
// flight. The gather has no deadline of its own beyond limit: it runs while
// at least one request waits for it. When the last one stops waiting (its
// deadline passed, or its client went away) the gather is cancelled, so no
// gather outlives the requests that asked for it.
type sharedGather struct {
	gather func(context.Context) *Report
	limit  time.Duration // the longest any gather may run
	grace  time.Duration // how long a request past its deadline waits for the cut-short report

	mu     sync.Mutex
	flight *flight
	last   atomic.Pointer[Report] // the newest report served
}

type flight struct {
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	report  *Report // set before done closes
	waiters int
	dropped bool // cancelled because every client went away: nobody saw it
}

// Scrape returns a report for one request, from the gather in flight or
// from a new one, bounded by ctx. When ctx's deadline passes first, the
// request waits a short grace more for the report (if nobody else waits,
// the gather is cancelled and its report has the sources it cut short
// marked down). When the client went away, or no report came, the error
// is ctx's.
func (c *Collector) Scrape(ctx context.Context) (*Report, error) { return c.shared.do(ctx) }

// Last is the newest report a scrape was given, or nil before the first.
func (c *Collector) Last() *Report { return c.shared.last.Load() }

func (s *sharedGather) do(ctx context.Context) (*Report, error) {
	f := s.join()
	select {
	case <-f.done:
		return f.report, nil
	case <-ctx.Done():
	}
	s.leave(f, ctx.Err())
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, ctx.Err()
	}
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-f.done:
		return f.report, nil
	case <-t.C:
		return nil, ctx.Err()
	}
}

// join returns the flight in progress, or starts one.
func (s *sharedGather) join() *flight {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flight == nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.limit)
		s.flight = &flight{ctx: ctx, cancel: cancel, done: make(chan struct{})}
		go s.run(s.flight)
	}
	s.flight.waiters++
	return s.flight
}

func (s *sharedGather) run(f *flight) {
	r := s.gather(f.ctx)
	s.mu.Lock()
	if s.flight == f {
		s.flight = nil
	}
	dropped := f.dropped
	s.mu.Unlock()
	f.cancel()
	f.report = r
	if !dropped {
		s.last.Store(r)
	}
	close(f.done)
}

// leave takes a request that stopped waiting off f; the last one cancels
// the gather, and a new request starts a fresh one.
func (s *sharedGather) leave(f *flight, why error) {
	s.mu.Lock()
	f.waiters--
	last := f.waiters == 0
	if last {
		if s.flight == f {
			s.flight = nil
		}
		f.dropped = !errors.Is(why, context.DeadlineExceeded)
	}
	s.mu.Unlock()
	if last {
		f.cancel()
	}
}
