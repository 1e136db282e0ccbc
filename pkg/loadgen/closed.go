package loadgen

import (
	"context"
	"sync"
	"time"
)

// connErrorPause keeps a VU facing a refused connection from spinning a
// core: such failures return in microseconds.
const connErrorPause = 20 * time.Millisecond

// vuPool is the closed-loop scheduler: n goroutines, each sending, waiting
// for the whole response, and sending again.
type vuPool struct {
	target *Target
	rec    *recorder
	stops  []chan struct{}
	wg     sync.WaitGroup
	next   int64 // the next VU's id: a VU started after another stopped never takes its id
}

// scale grows or shrinks the pool to n VUs. A stopped VU finishes its
// current request first.
func (p *vuPool) scale(ctx context.Context, n int) {
	for len(p.stops) < n {
		stop := make(chan struct{})
		p.stops = append(p.stops, stop)
		p.wg.Add(1)
		go p.vu(ctx, stop, p.next)
		p.next++
	}
	for len(p.stops) > n {
		last := len(p.stops) - 1
		close(p.stops[last])
		p.stops = p.stops[:last]
	}
}

func (p *vuPool) vu(ctx context.Context, stop <-chan struct{}, id int64) {
	defer p.wg.Done()
	for ctx.Err() == nil {
		select {
		case <-stop:
			return
		default:
		}
		start := time.Now()
		p.rec.inflight.Add(1)
		r := p.target.Hit(ctx)
		p.rec.inflight.Add(-1)
		if r.Cancelled {
			return
		}
		end := time.Now()
		p.rec.record(end, id, end.Sub(start), r)
		if r.Outcome == OutcomeConnection {
			pause(ctx, stop, connErrorPause)
		}
	}
}

func pause(ctx context.Context, stop <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-stop:
	case <-t.C:
	}
}

// run holds step s until `until`.
func (p *vuPool) run(ctx context.Context, s Step, _ time.Time, until time.Time) {
	p.scale(ctx, s.VUs)
	sleepUntil(ctx, until)
}

// wait ends every VU; the caller cancels ctx first so in-flight requests
// return at once.
func (p *vuPool) wait() {
	p.scale(context.Background(), 0)
	p.wg.Wait()
}

// sleepUntil returns at t or when ctx ends, whichever is first.
func sleepUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
