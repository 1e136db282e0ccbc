package capacity

// latencySteps bounds the bisection: 60 halvings of [longest hold,
// response] leave an interval far below a nanosecond for any latency
// under an hour.
const latencySteps = 60

// LatencyAlone runs Overlapping backwards. Given the response time measured
// at n closed-loop users (think time excluded, as Point.Response), it
// returns the one-execution latency L for which Overlapping(net, L, n)
// answers that response: L = response − Σ_k W_k(n), the waits computed with
// L itself, solved by bisection (the response grows with L). While n fits
// on every station's servers nobody waits and L is the response. L is never
// below the network's MinLatency, Overlapping's own lower limit: a response
// shorter than that (n8n answering before a station lets go of the
// execution) gives MinLatency.
func LatencyAlone(net Network, n int, response float64) (float64, error) {
	if err := checkRun(net, n); err != nil {
		return 0, err
	}
	if !positive(response) {
		return 0, invalid("response time must be a positive number of seconds, got %v", response)
	}
	lo, hi := net.MinLatency(), response
	if hi <= lo {
		return lo, nil
	}
	at := func(l float64) (float64, error) {
		c, err := Overlapping(net, l, n)
		if err != nil {
			return 0, err
		}
		return c[n-1].Response, nil
	}
	if r, err := at(hi); err != nil || r <= response {
		return hi, err // nobody waits
	}
	if r, err := at(lo); err != nil || r >= response {
		return lo, err
	}
	for range latencySteps {
		mid := (lo + hi) / 2
		r, err := at(mid)
		if err != nil {
			return 0, err
		}
		if r < response {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}
