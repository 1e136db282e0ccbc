package queue

import "slices"

// RunnerTime is the runner-stage time by Little's law on the runner
// slots, for runners no probe watches. A worker's runners hold
// min(its jobs in service, their capacity) tasks at once: a job past the
// capacity waits inside the worker for a runner slot. So the busy runner
// slots are Σ over workers of min(jobs held, capacity), and the task time
// is their time-weighted mean (MeanActive) ÷ the completion rate (in
// JobTime). This holds while the runners are saturated, where the job
// time holds the wait for a slot; below saturation every held job counts
// as a task, so the figure is the job time, an upper bound of the task
// time. It needs the capacity (SetRunnerLimit): a lock names its holder by
// a token, not by the worker's name, so one capacity serves every worker.
func (s *Sampler) RunnerTime() (Estimate, bool) {
	s.mu.Lock()
	run := s.clean
	s.mu.Unlock()
	if len(run) < 2 {
		return Estimate{}, false
	}
	e := littles(run, busyRunnerSlots)
	e.JobTime = e.time()
	return e, e.JobTime > 0
}

// busyRunnerSlots is Σ min(held, limit) over the reading's holders, never
// more than the live workers' jobs.
func busyRunnerSlots(s sample) float64 {
	var n int64
	for _, h := range s.held {
		n += min(h, s.limit)
	}
	return float64(min(n, s.active))
}

// cleanRun is the steady stretch at the end of the newest readings that
// no estimate must skip (no stalled job, no counter reset), gated or not,
// and that knew the runner capacity.
func cleanRun(samples []sample) []sample {
	return slices.Clone(steadySuffix(usableSuffix(samples, func(s sample) bool { return !s.stalled && s.limit > 0 })))
}
