package queue

import "time"

// Estimate is a job-stage service time by Little's law: W = L / λ, with L
// the time-weighted mean of the active list and λ the job-id counter's rate.
type Estimate struct {
	JobTime    time.Duration
	MeanActive float64
	Rate       float64 // jobs per second
	Span       time.Duration
	Jobs       int64 // arrivals in the span
	At         time.Time
}

// Minimums for a trustworthy estimate.
const (
	minSpan = 5 * time.Second
	minJobs = 3
)

// saturated reports a reading taken while every worker slot was busy or
// jobs waited in Redis: arrivals then no longer enter the active list at
// once, and Little's law on the active list would measure the queue. A
// gated reading (the runner was saturated) is saturated too: jobs then hold
// their worker slot while waiting for a runner slot.
func saturated(s sample, slots int64) bool {
	return s.gated || s.wait > 0 || (slots > 0 && s.active >= slots)
}

// estimate uses the newest run of unsaturated samples.
func estimate(samples []sample, slots int64) (Estimate, bool) {
	run := unsaturatedSuffix(samples, slots)
	if len(run) < 2 {
		return Estimate{}, false
	}
	first, last := run[0], run[len(run)-1]
	span := last.at.Sub(first.at)
	jobs := last.id - first.id
	if span < minSpan || jobs < minJobs {
		return Estimate{}, false
	}
	e := Estimate{MeanActive: meanActive(run), Span: span, Jobs: jobs, At: last.at}
	e.Rate = float64(jobs) / span.Seconds()
	e.JobTime = time.Duration(e.MeanActive / e.Rate * float64(time.Second))
	return e, e.JobTime > 0
}

// unsaturatedSuffix returns the newest samples that are unsaturated and
// whose counter never went backwards (a flushed Redis restarts it).
func unsaturatedSuffix(samples []sample, slots int64) []sample {
	i := len(samples)
	for i > 0 && !saturated(samples[i-1], slots) {
		if i < len(samples) && samples[i].id < samples[i-1].id {
			break
		}
		i--
	}
	return samples[i:]
}

// meanActive is the time-weighted (trapezoid) mean of the active list.
func meanActive(run []sample) float64 {
	var area, total float64
	for i := 1; i < len(run); i++ {
		dt := run[i].at.Sub(run[i-1].at).Seconds()
		area += dt * float64(run[i].active+run[i-1].active) / 2
		total += dt
	}
	return area / total
}
