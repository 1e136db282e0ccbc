package capacity

// SpreadRunner is a runner whose worker is not known: it serves one of
// its candidates (a name that Docker's DNS or a Service spreads over
// replicas, with nothing observed to tell which).
type SpreadRunner struct {
	Name  string
	Limit int
	// Candidates are indexes into Cluster.Workers.
	Candidates []int
	// Elsewhere is true when it may serve none of them instead (a
	// candidate outside the production workers: a queue-mode main).
	Elsewhere bool
}

// options counts where the runner may be placed.
func (s SpreadRunner) options() int {
	if s.Elsewhere {
		return len(s.Candidates) + 1
	}
	return len(s.Candidates)
}

// at lists the worker of option k: none for the one past the candidates.
func (s SpreadRunner) at(k int) []int {
	if k == len(s.Candidates) {
		return nil
	}
	return s.Candidates[k : k+1]
}

// Range is what holds whatever the spread: the lowest and highest
// effective concurrency and ceiling over every way the spread runners
// can be placed on their candidates.
type Range struct {
	EffectiveLow, EffectiveHigh int
	CeilingLow, CeilingHigh     float64 // 0 when the service time is unknown
	// Exact is false when the placements were too many to try: the bounds
	// then place every spread runner nowhere (low) and on every candidate
	// at once (high), which still contain the truth.
	Exact bool
}

// maxPlacements bounds the placements tried one by one.
const maxPlacements = 1 << 12

// spreadRange bounds the cluster's effective concurrency and ceiling
// over the placements of c.Spread.
func spreadRange(c Cluster) Range {
	n := 1
	for _, s := range c.Spread {
		n *= s.options()
		if n > maxPlacements {
			return looseRange(c)
		}
	}
	place := make([]int, len(c.Spread))
	at := func(i int) []int { return c.Spread[i].at(place[i]) }
	eff, ceil := placed(c, at)
	r := Range{EffectiveLow: eff, EffectiveHigh: eff, CeilingLow: ceil, CeilingHigh: ceil, Exact: true}
	for range n - 1 {
		next(place, c.Spread)
		eff, ceil = placed(c, at)
		r.EffectiveLow, r.EffectiveHigh = min(r.EffectiveLow, eff), max(r.EffectiveHigh, eff)
		r.CeilingLow, r.CeilingHigh = min(r.CeilingLow, ceil), max(r.CeilingHigh, ceil)
	}
	return r
}

// next advances place, an odometer whose digit i counts Spread[i]'s
// candidates.
func next(place []int, spread []SpreadRunner) {
	for i := range place {
		place[i]++
		if place[i] < spread[i].options() {
			return
		}
		place[i] = 0
	}
}

// looseRange bounds without trying placements: a runner added never
// lowers a worker's effective concurrency or ceiling, and adds at most its
// limit to each candidate's.
func looseRange(c Cluster) Range {
	lowEff, lowCeil := placed(c, func(int) []int { return nil })
	highEff, highCeil := placed(c, func(i int) []int { return c.Spread[i].Candidates })
	return Range{EffectiveLow: lowEff, EffectiveHigh: highEff, CeilingLow: lowCeil, CeilingHigh: highCeil}
}

// placed sums the workers' effective concurrency and ceilings with each
// spread runner i added to the workers at(i) names.
func placed(c Cluster, at func(i int) []int) (int, float64) {
	extra := make([][]Runner, len(c.Workers))
	for i, s := range c.Spread {
		for _, w := range at(i) {
			extra[w] = append(extra[w], Runner{Name: s.Name, Limit: s.Limit})
		}
	}
	var eff int
	var ceil float64
	for i, w := range c.Workers {
		w.Runners = append(w.Runners[:len(w.Runners):len(w.Runners)], extra[i]...)
		wv := evaluateWorker(w, c.Service)
		eff += wv.Effective
		ceil += wv.Ceiling
	}
	return eff, ceil
}
