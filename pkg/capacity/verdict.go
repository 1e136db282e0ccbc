package capacity

import "time"

// WorkerVerdict is the model's answer for one worker.
type WorkerVerdict struct {
	Name           string
	Concurrency    int  // 0 when Unlimited
	Unlimited      bool // no slot limit: the runners alone bound it
	RunnerCapacity int  // sum of the attached runners' limits; 0 if none
	Effective      int  // min(Concurrency, RunnerCapacity)
	Bottleneck     Bottleneck
	// Ceiling is executions per second, min(W/job, R/task); 0 when the
	// service time is unknown or the worker has no runner.
	Ceiling float64
	// Spread is true when a spread runner may serve it: RunnerCapacity
	// and the figures after it count only the runners known to.
	Spread bool
}

// Verdict is the model's answer for the cluster.
type Verdict struct {
	Workers           []WorkerVerdict
	WorkerConcurrency int // sum over workers with a slot limit
	RunnerCapacity    int // sum over workers
	Effective         int // sum of per-worker effective concurrency
	// WorkersWithoutRunner counts the workers no runner serves, spread
	// runners' candidates left out.
	WorkersWithoutRunner int
	Service              ServiceTime
	Ceiling              float64 // sum of per-worker ceilings; 0 when unknown
	// Range bounds Effective and Ceiling over the spread runners'
	// placements, which are then its low ends; nil without spread runners.
	Range *Range
}

// HasCeiling reports whether the service time was known.
func (v Verdict) HasCeiling() bool { return v.Service.Known() }

// Evaluate runs the model. It fails only on invalid input.
func Evaluate(c Cluster) (Verdict, error) {
	if err := c.Validate(); err != nil {
		return Verdict{}, err
	}
	v := Verdict{Service: c.Service}
	spread := map[int]bool{}
	for _, s := range c.Spread {
		v.RunnerCapacity += s.Limit
		for _, w := range s.Candidates {
			spread[w] = true
		}
	}
	for i, w := range c.Workers {
		wv := evaluateWorker(w, c.Service)
		wv.Spread = spread[i]
		v.Workers = append(v.Workers, wv)
		v.WorkerConcurrency += wv.Concurrency
		v.RunnerCapacity += wv.RunnerCapacity
		v.Effective += wv.Effective
		v.Ceiling += wv.Ceiling
		if wv.Bottleneck == BottleneckNone && !wv.Spread {
			v.WorkersWithoutRunner++
		}
	}
	if len(c.Spread) > 0 {
		r := spreadRange(c)
		v.Range, v.Effective, v.Ceiling = &r, r.EffectiveLow, r.CeilingLow
	}
	return v, nil
}

func evaluateWorker(w Worker, s ServiceTime) WorkerVerdict {
	wv := WorkerVerdict{Name: w.Name, Concurrency: w.Concurrency, Unlimited: w.Unlimited}
	for _, r := range w.Runners {
		wv.RunnerCapacity += r.Limit
	}
	if wv.Unlimited {
		wv.Concurrency = 0
	}
	wv.Effective = wv.RunnerCapacity
	if !wv.Unlimited {
		wv.Effective = min(wv.Concurrency, wv.RunnerCapacity)
	}
	switch {
	case wv.RunnerCapacity == 0:
		wv.Bottleneck = BottleneckNone
		return wv
	case wv.Unlimited:
		wv.Bottleneck = BottleneckRunner
	default:
		wv.Bottleneck = bottleneck(wv.Concurrency, wv.RunnerCapacity, s)
	}
	if s.Known() {
		wv.Ceiling = perSecond(wv.RunnerCapacity, s.Task)
		if !wv.Unlimited {
			wv.Ceiling = min(perSecond(wv.Concurrency, s.Job), wv.Ceiling)
		}
	}
	return wv
}

// bottleneck compares the two ceilings when times are known, else the slot
// counts. On a tie it names the worker: a job holds its worker slot at least
// as long as its task holds a runner slot, so the worker side binds first.
func bottleneck(workerSlots, runnerSlots int, s ServiceTime) Bottleneck {
	if s.Known() {
		if perSecond(runnerSlots, s.Task) < perSecond(workerSlots, s.Job) {
			return BottleneckRunner
		}
		return BottleneckWorker
	}
	if runnerSlots < workerSlots {
		return BottleneckRunner
	}
	return BottleneckWorker
}

func perSecond(slots int, t time.Duration) float64 {
	return float64(slots) / t.Seconds()
}
