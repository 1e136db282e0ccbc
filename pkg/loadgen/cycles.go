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

// cycleRate is a closed loop's throughput counted in whole cycles: the sum
// over VUs of (passes − 1) ÷ (last pass − first pass). Each VU's span
// holds exactly that many of its own cycles, so completions that arrive in
// bursts (the slots of a runner, all started together, finish together
// once per task time) cannot fall one burst short or over at the window's
// edges, as passes ÷ window can: one burst in a window of W seconds is
// task time ÷ W, 4 % of a 25 s window for 1 s tasks. It holds only when
// each of the step's want VUs passed at least twice in the window and no
// other VU finished there (a VU stopped by the step's scaling).
func cycleRate(vus map[int64]*vuPasses, want int) (float64, bool) {
	if want <= 0 || len(vus) != want {
		return 0, false
	}
	var rate float64
	for _, v := range vus {
		span := v.last.Sub(v.first).Seconds()
		if v.n < 2 || span <= 0 {
			return 0, false
		}
		rate += float64(v.n-1) / span
	}
	return rate, true
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
