package loadgen

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

const (
	sampleEvery = 10 * time.Millisecond // in-flight sampling for the step mean
	// drainSlack is added to the sweep's deadline on top of the plan and
	// one request timeout, so a wedged target cannot hold the run.
	drainSlack = 30 * time.Second
)

// Sweep runs a plan against a target. Hook, Observer, OnProgress and
// OnStep are optional. RecordBody keeps a JSON request body in the
// result's settings; by default only its size and content type are kept.
type Sweep struct {
	Plan          Plan
	Target        *Target
	RecordBody    bool
	Hook          StepHook
	Observer      Observer
	OnProgress    func(Progress)
	ProgressEvery time.Duration
	OnStep        func(StepResult) // after the step is stored

	current atomic.Pointer[stepInfo]
}

type stepInfo struct {
	index int
	load  Step
	from  time.Time // measured window start
}

type driver interface {
	run(ctx context.Context, s Step, start, until time.Time)
	wait()
}

// Run executes the sweep. A cancelled ctx ends it early with the steps so
// far and Interrupted set; only bad input is an error.
func (s *Sweep) Run(ctx context.Context) (*Result, error) {
	if err := s.Plan.Validate(); err != nil {
		return nil, err
	}
	if err := s.Target.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.Plan.Duration()+s.Target.Client.Timeout+drainSlack)
	defer cancel()
	obs := s.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	rec := &recorder{obs: obs}
	drv := s.newDriver(rec)
	res := &Result{Schema: SchemaVersion, Settings: s.settings(), Started: time.Now(), Thresholds: []ThresholdResult{}}
	stopBG := s.background(ctx, rec, res.Started.Add(s.Plan.Duration()))
	totals := newStepStats()
	var window time.Duration
	for i, st := range s.Plan.Steps {
		sr, w, ok := s.runStep(ctx, i, st, drv, rec, totals)
		if !ok {
			break
		}
		window += w
		res.Steps = append(res.Steps, sr)
		if s.OnStep != nil {
			s.OnStep(sr)
		}
		if ctx.Err() != nil || (s.Plan.StopAtKnee && AddsLittle(KneePoints(res.Steps))) {
			break
		}
	}
	res.Interrupted = ctx.Err() != nil
	cancel() // in-flight requests end now and are not counted
	drv.wait()
	stopBG()
	obs.SweepDone()
	res.Finished = time.Now()
	res.Total = totals.summary(window)
	res.Knee = kneeOf(res.Steps)
	return res, nil
}

// runStep holds one step and summarises its window. ok is false when the
// sweep was cancelled before the window opened.
func (s *Sweep) runStep(ctx context.Context, i int, st Step, drv driver, rec *recorder, totals *stepStats) (StepResult, time.Duration, bool) {
	start := time.Now()
	from := start.Add(s.Plan.Warmup)
	to := from.Add(s.Plan.Step)
	stats := rec.open(from, to, st.VUs)
	s.current.Store(&stepInfo{index: i, load: st, from: from})
	rec.obs.StepStarted(i, st)
	drv.run(ctx, st, start, to)
	end := min(time.Now().UnixNano(), to.UnixNano())
	window := time.Duration(end - from.UnixNano())
	if window <= 0 {
		return StepResult{}, 0, false
	}
	rec.mu.Lock()
	rec.to = time.Unix(0, end) // results after an early stop stay out
	sum := stats.summary(window)
	totals.merge(stats)
	rec.mu.Unlock()
	sr := StepResult{Index: i, Load: st, Started: start, Figures: sum}
	if s.Hook != nil {
		s.Hook.Attach(ctx, &sr)
	}
	return sr, window, true
}

func (s *Sweep) newDriver(rec *recorder) driver {
	if s.Plan.Model == Open {
		return newPacer(s.Target, rec, s.Plan.MaxInFlight, s.Plan.lateAfter())
	}
	return &vuPool{target: s.Target, rec: rec}
}

// background samples in-flight requests and reports progress until the
// returned stop is called.
func (s *Sweep) background(ctx context.Context, rec *recorder, plannedEnd time.Time) (stop func()) {
	every := s.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample, progress := time.NewTicker(sampleEvery), time.NewTicker(every)
		defer sample.Stop()
		defer progress.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case now := <-sample.C:
				rec.sample(now)
			case now := <-progress.C:
				s.report(rec, now, plannedEnd)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func (s *Sweep) report(rec *recorder, now, plannedEnd time.Time) {
	cur := s.current.Load()
	if s.OnProgress == nil || cur == nil {
		return
	}
	s.OnProgress(Progress{
		Step: cur.index, Steps: len(s.Plan.Steps), Load: cur.load,
		Warmup:    now.Before(cur.from),
		Elapsed:   now.Sub(cur.from.Add(-s.Plan.Warmup)),
		Remaining: max(0, plannedEnd.Sub(now)),
		Figures:   rec.live(now),
		InFlight:  rec.inflight.Load(),
	})
}

func kneeOf(steps []StepResult) *Knee {
	i := FindKnee(KneePoints(steps))
	if i < 0 {
		return nil
	}
	return &Knee{Index: i, Load: steps[i].Load, MeasuredCeiling: steps[i].Figures.Throughput}
}

func (s *Sweep) settings() Settings {
	t, p := s.Target, s.Plan
	set := Settings{
		Model: p.Model, Steps: p.Steps, StepSeconds: p.Step.Seconds(), WarmupSeconds: p.Warmup.Seconds(),
		StopAtKnee: p.StopAtKnee, URLs: redact.URLs(t.URLs), Method: t.methodOrPost(),
		HeaderNames: slices.Sorted(maps.Keys(t.Header)), ContentType: t.ContentType, BodyBytes: len(t.Body),
		ExpectStatus: t.Checks.Status, TimeoutSeconds: t.Client.Timeout.Seconds(), Checks: []string{},
	}
	if p.Model == Open {
		set.MaxInFlight = p.MaxInFlight
		set.LateAfterSeconds = p.lateAfter().Seconds()
	}
	if s.RecordBody && strings.HasPrefix(t.ContentType, "application/json") {
		set.Body = string(t.Body)
	}
	for _, f := range t.Checks.Fields {
		set.Checks = append(set.Checks, f.Expr)
	}
	if s.Hook != nil {
		set.Exporter = s.Hook.Source()
	}
	if set.HeaderNames == nil {
		set.HeaderNames = []string{}
	}
	return set
}

// String is a one-line description for logs.
func (p Plan) String() string {
	loads := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		loads[i] = s.Label()
	}
	return fmt.Sprintf("%s loop, steps %s, %v each after %v warm-up", p.Model, strings.Join(loads, ", "), p.Step, p.Warmup)
}
