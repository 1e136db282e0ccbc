package capacity

import "math"

// fitTolerance is how close, relative to max(1, q), the fitted mean comes to
// the target queue length.
const fitTolerance = 1e-12

// fitFiniteSource returns the finite-source distribution of p users at a
// station of m servers whose mean queue length is q, and its log y. The
// mean grows with log y, at the rate of the variance (π is an exponential
// family in log y), so Newton's method converges fast from a warm start
// (start; a guess when it is not finite); a bracket catches the steps that
// overshoot. work counts the terms of π it evaluated.
func fitFiniteSource(p int, m, q, start float64) (fs finiteSource, logY float64, work int) {
	switch {
	case q <= 0:
		return pointMass(0), start, 1
	case q >= float64(p)*(1-fitTolerance):
		return pointMass(p), start, 1
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	t := start
	if math.IsNaN(t) || math.IsInf(t, 0) {
		t = startLogY(p, q)
	}
	for range 200 {
		fs = newFiniteSource(p, m, t)
		work += len(fs.pi)
		mean, variance := fs.moments()
		gap := q - mean
		if math.Abs(gap) <= fitTolerance*math.Max(1, q) {
			return fs, t, work
		}
		if gap > 0 {
			lo = t
		} else {
			hi = t
		}
		t = nextLogY(t, gap, variance, lo, hi)
	}
	return fs, t, work
}

// nextLogY is a Newton step of at most 4 (a factor of e^4 in y), or the
// bracket's midpoint when the step leaves the bracket.
func nextLogY(t, gap, variance, lo, hi float64) float64 {
	step := 4.0
	if variance > 0 {
		step = math.Min(4, math.Abs(gap)/variance)
	}
	next := t + math.Copysign(step, gap)
	if next > lo && next < hi {
		return next
	}
	return (lo + hi) / 2
}

// startLogY guesses log y for a queue of q out of p users: the value that
// fits when no user ever waits (π binomial, mean p·y/(1+y)).
func startLogY(p int, q float64) float64 {
	return math.Log(q / (float64(p) - q))
}
