package capacity

import "math"

// exactMarginals gives the exact queue-length probabilities of each
// multi-server station of a product-form network, from normalizing
// constants: p_k(j | n) = f_k(j) · G_{−k}(n−j) / G(n), where G_{−k} is the
// constant of the network without station k (Lazowska et al., ch. 20).
// Every constant is a convolution of positive terms in log space, so the
// probabilities keep their precision at any utilization. The textbook
// recursion p(0 | n) = 1 − Σ_{j≥1} p(j | n) subtracts nearly equal numbers
// there: its error grows with n and m and swamps the result.
type exactMarginals struct {
	factor []logSeq // f_k, for stations with more than one server
	rest   []logSeq // G_{−k}
	all    logSeq   // G
}

func newExactMarginals(st []Station, think float64, maxN int) *exactMarginals {
	e := &exactMarginals{factor: make([]logSeq, len(st)), rest: make([]logSeq, len(st))}
	for k, s := range st {
		if s.Servers <= 1 || s.Demand == 0 {
			continue
		}
		e.rest[k] = delaySeq(think, maxN)
		for l, o := range st {
			if l != k && o.Demand > 0 {
				e.rest[k] = convolve(e.rest[k], o)
			}
		}
		e.factor[k] = stationFactor(s, maxN)
		if e.all == nil {
			e.all = convolve(e.rest[k], s)
		}
	}
	return e
}

// exactWork is the number of convolution terms newExactMarginals sums.
func exactWork(st []Station, maxN int) int {
	var per, work int
	for _, s := range st {
		if s.Demand > 0 {
			per += (maxN + 1) * (int(math.Min(s.Servers, float64(maxN))) + 2)
		}
	}
	for _, s := range st {
		if s.Servers > 1 && s.Demand > 0 {
			work += per
		}
	}
	return work
}

// work is the terms summed for the probabilities: bounded up front.
func (e *exactMarginals) work() int { return 0 }

// wait is the mean wait W = residence − D of a user arriving at station k
// when n−1 users are in the network and q of them at k:
//
//	residence = D/m · (1 + q + Σ_{j ≤ m−1} (m−1−j) p(j | n−1))
func (e *exactMarginals) wait(k, n int, s Station, q float64) float64 {
	p := n - 1
	var idle float64
	for j := 0; j <= p && float64(j) <= s.Servers-1; j++ {
		idle += (s.Servers - 1 - float64(j)) * math.Exp(e.factor[k][j]+e.rest[k][p-j]-e.all[p])
	}
	return math.Max(0, s.Demand/s.Servers*(1+q+idle)-s.Demand)
}
