package capacity

import "math"

// logSeq holds a sequence of non-negative numbers as natural logarithms,
// −Inf standing for zero, so normalizing constants of any size fit and
// sums of positive terms never subtract.
type logSeq []float64

var negInf = math.Inf(-1)

// logSumExp is log Σ exp(v) over v, −Inf for an empty or all-zero list.
func logSumExp(v []float64) float64 {
	top := negInf
	for _, x := range v {
		top = math.Max(top, x)
	}
	if math.IsInf(top, -1) {
		return top
	}
	var sum float64
	for _, x := range v {
		sum += math.Exp(x - top)
	}
	return top + math.Log(sum)
}

// delaySeq is log Z^j/j! for j = 0..n: the factor of a delay station (a
// think time) in a product-form network.
func delaySeq(z float64, n int) logSeq {
	out := make(logSeq, n+1)
	lz := math.Log(z)
	for j := 1; j <= n; j++ {
		if z == 0 {
			out[j] = negInf
			continue
		}
		lg, _ := math.Lgamma(float64(j + 1))
		out[j] = float64(j)*lz - lg
	}
	return out
}

// stationFactor is log f(j) for j = 0..n, with f(j) = D^j / Π_{i≤j} min(i, m):
// the factor of a station of m ≥ 1 servers in a product-form network.
func stationFactor(s Station, n int) logSeq {
	out := make(logSeq, n+1)
	ld := math.Log(s.Demand)
	for j := 1; j <= n; j++ {
		out[j] = out[j-1] + ld - math.Log(math.Min(float64(j), s.Servers))
	}
	return out
}

// convolve returns x * f for the factor f of station s (m ≥ 1, D > 0), over
// the length of x. Terms up to j = ⌊m⌋ are summed directly; beyond, f falls
// by D/m per step, so the rest follows T(n) = f(L+1)·x(n−L−1) + (D/m)·T(n−1).
// The cost is len(x) × ⌊m⌋.
func convolve(x logSeq, s Station) logSeq {
	n := len(x) - 1
	L := int(math.Min(math.Floor(s.Servers), float64(n)))
	f := stationFactor(s, min(L+1, n))
	out := make(logSeq, n+1)
	terms := make([]float64, 0, L+2)
	tail, ratio := negInf, math.Log(s.Demand/s.Servers)
	for i := 0; i <= n; i++ {
		terms = terms[:0]
		for j := 0; j <= min(i, L); j++ {
			terms = append(terms, f[j]+x[i-j])
		}
		if i > L {
			tail = logSumExp([]float64{f[L+1] + x[i-L-1], ratio + tail})
			terms = append(terms, tail)
		}
		out[i] = logSumExp(terms)
	}
	return out
}
