package loadgen

import (
	"context"
	"sync"
	"time"
)

// pacer is the open-loop scheduler. Request i of a step is due at
// start + i/rate. Each due request takes an in-flight slot and runs in its
// own goroutine; with no slot free it is counted as dropped. Latency runs
// from the due time, so time spent waiting to start counts.
type pacer struct {
	target    *Target
	rec       *recorder
	slots     chan struct{}
	lateAfter time.Duration
	wg        sync.WaitGroup
}

func newPacer(t *Target, rec *recorder, maxInFlight int, lateAfter time.Duration) *pacer {
	return &pacer{target: t, rec: rec, slots: make(chan struct{}, maxInFlight), lateAfter: lateAfter}
}

// run starts requests at s.Rate from start until `until`. The loop is
// bounded by `until` and ctx; each pass dispatches everything already due,
// so timer slack shows up as late starts, never as a lower rate.
func (p *pacer) run(ctx context.Context, s Step, start, until time.Time) {
	timer := time.NewTimer(time.Hour) // one timer, reset per due time
	defer timer.Stop()
	for i := 0; ctx.Err() == nil; i++ {
		due := start.Add(time.Duration(float64(i) * float64(time.Second) / s.Rate))
		if !due.Before(until) {
			sleepUntil(ctx, until)
			return
		}
		if !wait(ctx, timer, due) {
			return
		}
		p.dispatch(ctx, due)
	}
}

// wait blocks until t on a reused timer; false when ctx ended first.
func wait(ctx context.Context, timer *time.Timer, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

func (p *pacer) dispatch(ctx context.Context, due time.Time) {
	now := time.Now()
	select {
	case p.slots <- struct{}{}:
	default:
		p.rec.record(due, -1, 0, Reply{Outcome: OutcomeDropped, Detail: "no in-flight slot free at the intended start"})
		return
	}
	if now.Sub(due) > p.lateAfter {
		p.rec.late(due)
	}
	p.wg.Add(1)
	p.rec.inflight.Add(1)
	go p.fire(ctx, due)
}

func (p *pacer) fire(ctx context.Context, due time.Time) {
	defer p.wg.Done()
	r := p.target.Hit(ctx)
	p.rec.inflight.Add(-1)
	<-p.slots
	if !r.Cancelled {
		end := time.Now()
		p.rec.record(end, -1, end.Sub(due), r)
	}
}

func (p *pacer) wait() { p.wg.Wait() }
