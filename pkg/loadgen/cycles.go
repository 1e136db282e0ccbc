package loadgen

import "time"

// Throughput bases: how Summary.Throughput was counted.
const (
	BasisWindow   = "window"    // passes ÷ the window
	BasisVUCycles = "vu_cycles" // closed loop: Σ over VUs of whole cycles ÷ their span
)

// vuPasses is one VU's passing requests in a step's window.
type vuPasses struct {
	n           int64
	first, last time.Time
}

// maxUncovered is how many of a VU's own cycles its span may leave of the
// window: up to one before its first pass and one after its last, and one
// more for the jitter of its cycle.
const maxUncovered = 3

// cycleRate is a closed loop's throughput counted in whole cycles: the
// VUs times their mean cycle rate, Σ (passes − 1) ÷ Σ (last pass − first
// pass) over the VUs. Each VU's span holds exactly that many of its own
// cycles, so completions that arrive in bursts (the slots of a runner, all
// started together, finish together once per task time) cannot fall one
// burst short or over at the window's edges, as passes ÷ window can: one
// burst in a window of W seconds is task time ÷ W, 4 % of a 25 s window
// for 1 s tasks. The ratio of the sums, not the sum of each VU's ratio: a
// server that is not first come, first served lets a VU pass twice in a
// row, and that VU's own ratio would read its short span as its rate. It
// holds only when each of the step's want VUs passed at least twice in the
// window, no other VU finished there (a VU stopped by the step's scaling),
// and each VU's span leaves at most maxUncovered of its own cycles of the
// window outside it: a VU the server starved for most of the window (one
// that is not first come, first served) has a span that says nothing of
// the others' rate, and the mean would read the busy VUs' rate for all.
func cycleRate(vus map[int64]*vuPasses, want int, window time.Duration) (float64, bool) {
	if want <= 0 || len(vus) != want {
		return 0, false
	}
	var cycles, span float64
	for _, v := range vus {
		own := v.last.Sub(v.first).Seconds()
		if v.n < 2 || window.Seconds()-own > maxUncovered*own/float64(v.n-1) {
			return 0, false
		}
		cycles += float64(v.n - 1)
		span += own
	}
	if span <= 0 {
		return 0, false
	}
	return float64(want) * cycles / span, true
}

// pass records one VU's passing request that completed at end.
func (s *stepStats) pass(vu int64, end time.Time) {
	if s.vus == nil {
		s.vus = map[int64]*vuPasses{}
	}
	v := s.vus[vu]
	if v == nil {
		v = &vuPasses{first: end}
		s.vus[vu] = v
	}
	v.n++
	v.last = end
}
