package loadgen

import (
	"math"
	"testing"
	"time"
)

// bursts files the passes of a slot-bound closed loop into a window that
// opens at offset: limit slots, all started together, finish together
// every period (with a few ms of spread), and the vus VUs take them in
// turn, as Bull's FIFO queue hands out jobs.
func bursts(vus, limit int, period, offset, window time.Duration) *stepStats {
	s := newStepStats()
	s.want = vus
	t0 := time.Unix(1_700_000_000, 0)
	from, to := t0.Add(offset), t0.Add(offset+window)
	next := 0
	for k := 1; ; k++ {
		at := t0.Add(time.Duration(k) * period)
		if at.After(to.Add(period)) {
			return s
		}
		for j := range limit {
			end := at.Add(time.Duration(j) * 3 * time.Millisecond)
			if !end.Before(from) && end.Before(to) {
				s.add(end, int64(next%vus), period, Reply{Outcome: OutcomePass})
			}
			next++
		}
	}
}

// Bursts of 4 every 1.06 s counted over 25 s: passes ÷ window reads 23 or
// 24 bursts, depending on where the window falls (4 % apart); the VUs'
// whole cycles read 4 ÷ 1.06 s wherever it falls.
func TestCycleRateIgnoresBurstPhase(t *testing.T) {
	const vus, limit = 8, 4
	period, window := 1060*time.Millisecond, 25*time.Second
	want := limit / period.Seconds()
	lo, hi := math.Inf(1), math.Inf(-1)
	for off := time.Duration(0); off < period; off += 50 * time.Millisecond {
		sum := bursts(vus, limit, period, off, window).summary(window)
		if sum.Basis != BasisVUCycles {
			t.Fatalf("offset %v: basis %q, want %q", off, sum.Basis, BasisVUCycles)
		}
		if d := math.Abs(sum.Throughput/want - 1); d > 0.005 {
			t.Errorf("offset %v: %.4f/s, want %.4f/s within 0.5 %%", off, sum.Throughput, want)
		}
		byWindow := float64(sum.Passed) / window.Seconds()
		lo, hi = min(lo, byWindow/want), max(hi, byWindow/want)
	}
	if hi-lo < 0.03 {
		t.Errorf("passes ÷ window read %.3f to %.3f of the rate: the bursts should move it by one burst in 23", lo, hi)
	}
}

// The window count stands wherever whole cycles cannot be read. Each case's
// VUs but the one it names cover the 2 s window to within their cycle.
func TestCycleRateFallsBackToTheWindow(t *testing.T) {
	window := 2 * time.Second
	at := time.Unix(1_700_000_000, 0)
	pass := Reply{Outcome: OutcomePass}
	cases := map[string]func(s *stepStats){
		"a VU passed once": func(s *stepStats) {
			s.add(at, 0, time.Second, pass)
			s.add(at.Add(time.Second), 0, time.Second, pass)
			s.add(at, 1, time.Second, pass)
		},
		"a request failed": func(s *stepStats) {
			for vu := range int64(2) {
				s.add(at, vu, time.Second, pass)
				s.add(at.Add(time.Second), vu, time.Second, pass)
			}
			s.add(at, 0, time.Second, Reply{Outcome: OutcomeTimeout})
		},
		"a stopped VU finished in the window": func(s *stepStats) {
			for vu := range int64(3) {
				s.add(at, vu, time.Second, pass)
				s.add(at.Add(time.Second), vu, time.Second, pass)
			}
		},
		"a VU starved for most of the window": func(s *stepStats) {
			for k := range 40 {
				s.add(at.Add(time.Duration(k)*50*time.Millisecond), 0, 50*time.Millisecond, pass)
			}
			s.add(at, 1, 50*time.Millisecond, pass)
			s.add(at.Add(50*time.Millisecond), 1, 50*time.Millisecond, pass)
		},
		"the open loop": func(s *stepStats) {
			s.want = 0
			s.add(at, -1, time.Second, pass)
			s.add(at.Add(time.Second), -1, time.Second, pass)
		},
	}
	for name, fill := range cases {
		s := newStepStats()
		s.want = 2
		fill(s)
		sum := s.summary(window)
		if sum.Basis != BasisWindow || sum.Throughput != float64(sum.Passed)/window.Seconds() {
			t.Errorf("%s: %.3f/s by %q, want passes ÷ window", name, sum.Throughput, sum.Basis)
		}
	}
}
