package capacity

import "math"

// finiteSource is the queue-length distribution of one station of m servers
// visited by p users, each of whom spends an exponential time elsewhere
// before coming back (the finite-source queue M/M/m//p, a birth–death
// process):
//
//	π(j) ∝ p!/(p−j)! · y^j / Π_{i≤j} min(i, m),  y = D/(time elsewhere)
//
// Only the terms of at least 1e−18 times the largest are kept; they sit in
// a window around the mode because π is log-concave.
type finiteSource struct {
	lo int       // the window's first queue length
	pi []float64 // π(lo), π(lo+1), …, normalized
}

// negligible is the weight, relative to the mode's, below which a term of π
// is dropped.
const negligible = 1e-18

func newFiniteSource(p int, m, logY float64) finiteSource {
	y := math.Exp(logY)
	ratio := func(j int) float64 { // π(j)/π(j−1)
		return float64(p-j+1) * y / math.Min(float64(j), m)
	}
	mode := lastAtLeastOne(p, ratio)
	left := walk(mode, -1, 1, func(j int) float64 { return 1 / ratio(j) })
	right := walk(mode+1, +1, p, ratio)
	fs := finiteSource{lo: mode - len(left), pi: make([]float64, 0, len(left)+1+len(right))}
	for i := len(left) - 1; i >= 0; i-- {
		fs.pi = append(fs.pi, left[i])
	}
	fs.pi = append(fs.pi, 1)
	fs.pi = append(fs.pi, right...)
	var sum float64
	for _, w := range fs.pi {
		sum += w
	}
	for i := range fs.pi {
		fs.pi[i] /= sum
	}
	return fs
}

// walk multiplies the mode's weight 1 by step(j) for j = from, from+dir, …,
// end, and returns the weights until one falls below negligible (π falls
// monotonically away from its mode, being log-concave).
func walk(from, dir, end int, step func(int) float64) []float64 {
	var out []float64
	w := 1.0
	for j := from; (end-j)*dir >= 0; j += dir {
		w *= step(j)
		if w < negligible {
			break
		}
		out = append(out, w)
	}
	return out
}

// lastAtLeastOne is the largest j in [0, p] with j == 0 or ratio(j) ≥ 1;
// ratio falls as j grows, so this is the mode.
func lastAtLeastOne(p int, ratio func(int) float64) int {
	lo, hi := 0, p
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ratio(mid) >= 1 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func pointMass(j int) finiteSource { return finiteSource{lo: j, pi: []float64{1}} }

// moments are the mean and variance of the queue length.
func (fs finiteSource) moments() (mean, variance float64) {
	for i, w := range fs.pi {
		mean += float64(fs.lo+i) * w
	}
	for i, w := range fs.pi {
		d := float64(fs.lo+i) - mean
		variance += d * d * w
	}
	return mean, variance
}

// wait is the mean wait of an arrival that finds this distribution at a
// station of m servers and demand D: D · Σ_j max(0, (j+1)/m − 1) · π(j).
func (fs finiteSource) wait(m, demand float64) float64 {
	var w float64
	for i, p := range fs.pi {
		if over := float64(fs.lo+i+1)/m - 1; over > 0 {
			w += over * p
		}
	}
	return demand * w
}
