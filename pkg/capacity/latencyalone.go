package capacity

import "math"

// latencySteps bounds each bisection: 60 halvings of an interval of
// latencies leave one far below a nanosecond for any latency under an
// hour.
const latencySteps = 60

// LatencyAlone runs Overlapping backwards. Given the response time measured
// at n closed-loop users (think time excluded, as Point.Response), it
// returns the one-execution latency L for which Overlapping answers that
// response over net.HeldAtMost(L): L = response − Σ_k W_k(n), the waits
// computed with L itself. While n fits on every station's servers nobody
// waits and L is the response. L is never below Floor(n): a response
// shorter than that (n8n answering before a slot lets go of the execution)
// gives the floor.
//
// The response is not monotone in L: below a CPU's demand the execution's
// CPU seconds crowd into a shorter latency (Station.within), and two
// executions meet there more often. L is the largest latency that answers
// the response; where none does, the one whose response comes nearest.
func LatencyAlone(net Network, n int, response float64) (float64, error) {
	if err := checkRun(net, n); err != nil {
		return 0, err
	}
	if !positive(response) {
		return 0, invalid("response time must be a positive number of seconds, got %v", response)
	}
	lo, err := net.Floor(n)
	if err != nil || response <= lo {
		return lo, err
	}
	at := func(l float64) (float64, error) {
		p, err := net.heldAt(l, n)
		return p.Response, err
	}
	if r, err := at(response); err != nil || r <= response {
		return response, err // nobody waits
	}
	best, least, err := leastResponse(lo, response, at)
	if err != nil || least >= response {
		return best, err
	}
	return lowest(best, response, func(l float64) (bool, error) {
		r, err := at(l)
		return r > response, err
	})
}

// leastResponse is the latency in [lo, hi] whose response is least, and
// that response, by golden-section search (the response falls, then
// grows, with L); lo itself when the response only grows.
func leastResponse(lo, hi float64, at func(float64) (float64, error)) (float64, float64, error) {
	atLo, err := at(lo)
	if err != nil {
		return 0, 0, err
	}
	a, b, g := lo, hi, (math.Sqrt(5)-1)/2
	for range latencySteps {
		l, h := b-g*(b-a), a+g*(b-a)
		rl, err := at(l)
		if err != nil {
			return 0, 0, err
		}
		rh, err := at(h)
		if err != nil {
			return 0, 0, err
		}
		if rl <= rh {
			b = h
		} else {
			a = l
		}
	}
	mid := (a + b) / 2
	r, err := at(mid)
	if err != nil || r >= atLo {
		return lo, atLo, err
	}
	return mid, r, nil
}

// Floor is the shortest one-execution latency the network allows at n
// users: at least every CPU's MinHold, and each slot's hold less the waits
// for a CPU that the MVA puts on its execution at n users. A slot's hold is
// measured under load: a job keeps its worker slot, and a task its runner
// slot, while it waits for a core or a runner's thread, so that hold alone
// is the measured one less those waits. At one user nobody waits, and the
// floor is the longest hold.
func (net Network) Floor(n int) (float64, error) {
	lo := net.HeldAtMost(0).MinLatency()
	var slot float64
	for _, s := range net.Stations {
		if !s.Spread {
			slot = max(slot, s.Hold())
		}
	}
	if slot <= lo || lo == 0 {
		return max(slot, lo), nil
	}
	holds := func(l float64) (bool, error) {
		p, err := net.heldAt(l, n)
		w := 0.0
		for k, s := range net.Stations {
			if s.Spread {
				w += p.Stations[k].Wait
			}
		}
		return l+w >= slot, err
	}
	if ok, err := holds(lo); err != nil || ok {
		return lo, err
	}
	return lowest(lo, slot, holds)
}

// heldAt is Overlapping's point at n users over the network held at
// latency l.
func (net Network) heldAt(l float64, n int) (Point, error) {
	c, err := Overlapping(net.HeldAtMost(l), l, n)
	if err != nil {
		return Point{}, err
	}
	return c[n-1], nil
}

// lowest bisects [lo, hi], where ok(lo) is false and ok(hi) true, for the
// latency at which ok turns true.
func lowest(lo, hi float64, ok func(float64) (bool, error)) (float64, error) {
	for range latencySteps {
		mid := (lo + hi) / 2
		yes, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if yes {
			hi = mid
		} else {
			lo = mid
		}
	}
	return (lo + hi) / 2, nil
}
