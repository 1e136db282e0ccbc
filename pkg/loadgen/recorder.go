package loadgen

import (
	"sync"
	"sync/atomic"
	"time"
)

// recorder routes each finished request to the step window it completed
// in. One mutex keeps the histograms consistent; it is held for a few
// hundred nanoseconds per request.
type recorder struct {
	mu       sync.Mutex
	stats    *stepStats
	from, to time.Time // measured window of the current step
	inflight atomic.Int64
	obs      Observer
}

// open starts a new step whose figures count from `from` until `to`; vus
// is a closed loop's VUs in it (an open loop's results name no VU, so its
// steps never count cycles).
func (r *recorder) open(from, to time.Time, vus int) *stepStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats, r.from, r.to = newStepStats(), from, to
	r.stats.want = vus
	return r.stats
}

func (r *recorder) inWindow(t time.Time) bool {
	return r.stats != nil && !t.Before(r.from) && t.Before(r.to)
}

// record files a result that completed at end (dropped starts: at their
// intended start); vu names the closed loop's VU that sent it (-1: the
// open loop).
func (r *recorder) record(end time.Time, vu int64, lat time.Duration, rep Reply) {
	r.obs.Result(lat, rep.Outcome)
	r.mu.Lock()
	if r.inWindow(end) {
		r.stats.add(end, vu, lat, rep)
	}
	r.mu.Unlock()
}

func (r *recorder) late(at time.Time) {
	r.mu.Lock()
	if r.inWindow(at) {
		r.stats.late++
	}
	r.mu.Unlock()
}

// sample adds the current in-flight count to the step's mean.
func (r *recorder) sample(at time.Time) {
	n := r.inflight.Load()
	r.obs.InFlight(n)
	r.mu.Lock()
	if r.inWindow(at) {
		r.stats.inflight += float64(n)
		r.stats.samples++
	}
	r.mu.Unlock()
}

// live returns the current step's figures so far, for progress lines.
func (r *recorder) live(now time.Time) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stats == nil || now.Before(r.from) {
		return Summary{}
	}
	if now.After(r.to) {
		now = r.to
	}
	return r.stats.summary(now.Sub(r.from))
}
