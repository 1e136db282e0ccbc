package queue

import (
	"math"
	"time"
)

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

// estimate uses the longest steady stretch at the end of the newest run of
// unsaturated samples.
func estimate(samples []sample, slots int64) (Estimate, bool) {
	run := steadySuffix(unsaturatedSuffix(samples, slots))
	if len(run) < 2 {
		return Estimate{}, false
	}
	first, last := run[0], run[len(run)-1]
	span := last.at.Sub(first.at)
	jobs := last.id - first.id
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

// steadySuffix returns the longest suffix of run that is long enough and
// starts and ends with about the same number of active jobs. Little's law
// over a finite window holds only then: a window that catches a backlog
// draining (or a load ramping up) counts jobs that arrived before it (or
// leave after it), and its estimate can be off by the whole backlog.
func steadySuffix(run []sample) []sample {
	if len(run) < 2 {
		return nil
	}
	last := run[len(run)-1]
	for i := 0; i < len(run)-1; i++ {
		s := run[i:]
		if last.at.Sub(s[0].at) < minSpan || last.id-s[0].id < minJobs {
			return nil
		}
		if tol := max(1, 0.2*meanActive(s)); math.Abs(float64(s[0].active-last.active)) <= tol {
			return s
		}
	}
	return nil
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
