package queue

import (
	"math"
	"time"
)

// Estimate is a job-stage service time by Little's law: W = L / X, with L
// the time-weighted mean of the locked active jobs and X the completion
// rate (the job-id counter less the jobs still queued).
type Estimate struct {
	JobTime    time.Duration
	MeanActive float64
	Rate       float64 // jobs completed per second
	Span       time.Duration
	Jobs       int64 // completed in the span
	At         time.Time
}

// Minimums for a trustworthy estimate. Completions are counted whole
// while the jobs in service at a window's two ends are partly inside it,
// so an estimate over N completions can be off by one job in N: minJobs
// keeps that under 5 %. An estimate is held while the runner is
// saturated, so a rough one (the few jobs of a load's first seconds read
// 1.125 s for 1.0 s jobs) would stand for the whole saturated stretch.
const (
	minSpan = 5 * time.Second
	minJobs = 20
)

// estimate uses the longest steady stretch at the end of the newest run of
// usable samples. Little's law holds for the jobs in service whether or not
// more wait in Redis, since its rate is the completions: a saturated worker
// is measured too, under the load it carries, with the time its slots spend
// between one job and the next. A gated reading (the runner was saturated)
// is not usable: jobs then hold their worker slot while waiting for a
// runner slot, and the runner, not the job, sets that time. Nor is a
// reading with a stalled job in the active list: Bull removes it without
// it completing, and the counter would count it as done.
func estimate(samples []sample) (Estimate, bool) {
	run := steadySuffix(usableSuffix(samples, func(s sample) bool { return !s.gated }))
	if len(run) < 2 {
		return Estimate{}, false
	}
	e := littles(run, activeJobs)
	e.JobTime = e.time()
	return e, e.JobTime > 0
}

// littles fills in the rate, span and jobs of run, and the time-weighted
// mean of inService over it.
func littles(run []sample, inService func(sample) float64) Estimate {
	first, last := run[0], run[len(run)-1]
	span := last.at.Sub(first.at)
	jobs := last.done() - first.done()
	e := Estimate{MeanActive: timeMean(run, inService), Span: span, Jobs: jobs, At: last.at}
	e.Rate = float64(jobs) / span.Seconds()
	return e
}

// time is W = L / X.
func (e Estimate) time() time.Duration {
	return time.Duration(e.MeanActive / e.Rate * float64(time.Second))
}

// usableSuffix returns the newest samples that ok accepts, taken under
// the newest one's shape, and whose counter never went backwards (a
// flushed Redis restarts it).
func usableSuffix(samples []sample, ok func(sample) bool) []sample {
	i := len(samples)
	for i > 0 && ok(samples[i-1]) && samples[i-1].sameShape(samples[len(samples)-1]) {
		if i < len(samples) && samples[i].id < samples[i-1].id {
			break
		}
		i--
	}
	return samples[i:]
}

// steadySuffix returns the longest suffix of run that is long enough and
// starts and ends with about the same number of locked jobs. Little's law
// over a finite window holds only then: a window that catches a backlog
// draining (or a load ramping up) counts jobs that arrived before it (or
// leave after it), and its estimate can be off by the whole backlog. The
// locks a killed worker left count here, though not in the mean: a new
// worker starting beside them would otherwise look full from its first
// job, its ramp a steady state.
func steadySuffix(run []sample) []sample {
	if len(run) < 2 {
		return nil
	}
	last := run[len(run)-1]
	for i := 0; i < len(run)-1; i++ {
		s := run[i:]
		if last.at.Sub(s[0].at) < minSpan || last.done()-s[0].done() < minJobs {
			return nil
		}
		if tol := max(1, 0.2*timeMean(s, activeJobs)); math.Abs(float64(s[0].locked()-last.locked())) <= tol {
			return s
		}
	}
	return nil
}

func activeJobs(s sample) float64 { return float64(s.active) }

// timeMean is the time-weighted (trapezoid) mean of f over run.
func timeMean(run []sample, f func(sample) float64) float64 {
	var area, total float64
	for i := 1; i < len(run); i++ {
		dt := run[i].at.Sub(run[i-1].at).Seconds()
		area += dt * (f(run[i]) + f(run[i-1])) / 2
		total += dt
	}
	return area / total
}
