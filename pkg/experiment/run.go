package experiment

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// Runner runs a spec's cases one after another.
type Runner struct {
	Spec   *Spec
	Apply  Applier
	Client *http.Client      // exporter scrapes; nil = 5 s timeout
	Log    func(line string) // progress; may be nil
	// ProgressLine renders the load's progress, logged every 5 s; nil
	// logs none (pkg/report.ProgressLine is loadctl's).
	ProgressLine func(loadgen.Progress) string
	// RecordBody keeps JSON request bodies in the result: in the spec it
	// echoes and in each sweep's settings. By default only their size and
	// content type are kept.
	RecordBody bool

	sec *redact.Secrets // the running case's, for its logs and errors
}

// Run executes every case. A case that cannot apply, settle or load is
// recorded with its error and the next case still runs; a cancelled ctx
// ends the run with the cases so far.
func (r *Runner) Run(ctx context.Context) *Result {
	if r.Client == nil {
		r.Client = &http.Client{Timeout: 5 * time.Second}
	}
	res := &Result{Schema: SchemaVersion, Spec: r.Spec.forResult(r.RecordBody), Started: time.Now(), Cases: []CaseResult{}}
	for i, c := range r.Spec.Cases {
		if ctx.Err() != nil {
			break
		}
		r.logf("case %d/%d %s", i+1, len(r.Spec.Cases), c.Name)
		res.Cases = append(res.Cases, r.runCase(ctx, c))
	}
	res.Finished = time.Now()
	res.Passed = len(res.Cases) == len(r.Spec.Cases)
	for _, c := range res.Cases {
		res.Passed = res.Passed && c.Passed
	}
	return res
}

// logf logs with the running case's secrets and every URL's credentials
// hidden.
func (r *Runner) logf(format string, a ...any) {
	if r.Log != nil {
		r.Log(r.sec.Text(fmt.Sprintf(format, a...)))
	}
}

func (r *Runner) runCase(ctx context.Context, c Case) CaseResult {
	env := mergeEnv(r.Spec.Env, c.Env)
	r.sec = caseSecrets(env)
	cr := CaseResult{Name: c.Name, Group: c.Group, Env: redactEnv(env, r.sec), Seed: c.Seed, Memory: []ContainerMemory{}, Checks: []CheckResult{}, ModelAt: c.Expect.ModelAt}
	if err := r.measure(ctx, c, env, &cr); err != nil {
		cr.Error = r.sec.Text(err.Error())
		r.logf("  %s: %s", c.Name, cr.Error)
	}
	cr.Checks = c.Expect.Evaluate(&cr)
	cr.Passed = cr.Error == ""
	for _, ch := range cr.Checks {
		cr.Passed = cr.Passed && ch.Passed
	}
	return cr
}

// measure applies the case, waits for its shape, runs the load and reads
// the prediction.
func (r *Runner) measure(ctx context.Context, c Case, env map[string]string, cr *CaseResult) error {
	t0 := time.Now()
	eps, err := r.Apply.Apply(ctx, env)
	if err != nil {
		return err
	}
	tgt := r.Spec.CaseTarget(c)
	urls, exporter, err := tgt.resolve(eps)
	if err != nil {
		return err
	}
	cr.Webhooks, cr.Exporter = redact.URLs(urls), redact.URL(exporter)
	top, err := settle(ctx, r.Client, exporter, c.Wait, r.Spec.Settle.Timeout.D(), r.Spec.Settle.Poll.D(),
		func(why string) { r.logf("  waiting %.0fs: %s", time.Since(t0).Seconds(), why) })
	cr.SettleSec = time.Since(t0).Seconds()
	if err != nil {
		return err
	}
	cr.Settled = &top
	r.logf("  settled after %.0fs: workers %v, runner limits %v", cr.SettleSec, top.WorkerConcurrency, top.RunnerLimits)
	cr.N8nVersion = r.n8nVersion(ctx, eps)
	load := r.Spec.CaseLoad(c)
	plan, err := load.Plan()
	if err != nil {
		return err
	}
	lt, err := tgt.loadTarget(urls, max(plan.MaxInFlight, maxVUs(plan)))
	if err != nil {
		return err
	}
	smp := newSampler(r.Client, exporter, eps.Probes(), r.Spec.SampleEvery.D())
	return r.load(ctx, plan, lt, smp, cr)
}

func (r *Runner) load(ctx context.Context, plan loadgen.Plan, lt *loadgen.Target, smp *sampler, cr *CaseResult) error {
	first := &firstFailure{}
	sw := &loadgen.Sweep{Plan: plan, Target: lt, RecordBody: r.RecordBody, ProgressEvery: time.Second, OnProgress: first.observe(r.progress),
		Hook: &comparison.Hook{Reader: &snapshot.Reader{URL: smp.exporter, Client: r.Client}}}
	stop := smp.start(ctx)
	first.start = time.Now()
	res, err := sw.Run(ctx)
	stop()
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	cr.Sweep = res
	cr.Measured = measured(res)
	cr.Failures = failuresOf(res.Total, first.after())
	cr.Probe, cr.Memory = smp.figures()
	p := PredictionOf(smp.lastExporter())
	now := time.Now()
	p.ReadAt = &now
	p.forLoad(cr.Measured.Step)
	cr.Predicted = &p
	if p.ForLoad > 0 {
		cr.Ratio = cr.Measured.Ceiling / p.ForLoad
	}
	cr.Model = CheckedStepModel(res, &p, cr.ModelAt)
	r.logf("  measured %.3f/s (%s), predicted %.3f/s, bottleneck %s, failed %d of %d%s",
		cr.Measured.Ceiling, cr.Measured.From, p.ForLoad, p.Bottleneck, cr.Failures.Failed, cr.Failures.Requests, modelLog(cr.Model))
	return nil
}

// modelLog is the bound and the MVA for the log line.
func modelLog(m *StepModel) string {
	if m == nil || m.Ceiling <= 0 {
		return ""
	}
	s := fmt.Sprintf("; ceiling %.3f/s set by %s (measured ÷ ceiling %.3f)", m.Ceiling, m.Binding, m.MeasuredOverCeiling)
	if m.MVA > 0 {
		s += fmt.Sprintf(", MVA %.3f/s", m.MVA)
	}
	return s
}

// firstFailure notes when progress first shows a failed request.
type firstFailure struct {
	mu    sync.Mutex
	start time.Time
	at    time.Duration
	seen  bool
	lines int
}

func (f *firstFailure) observe(log func(loadgen.Progress)) func(loadgen.Progress) {
	return func(p loadgen.Progress) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.seen && p.Figures.Requests > p.Figures.Passed {
			f.seen, f.at = true, time.Since(f.start)
		}
		if f.lines++; f.lines%5 == 0 { // a line every 5 s is enough in CI logs
			log(p)
		}
	}
}

// progress logs one progress line when the runner has a renderer.
func (r *Runner) progress(p loadgen.Progress) {
	if r.ProgressLine != nil {
		r.logf("  %s", r.ProgressLine(p))
	}
}

func (f *firstFailure) after() *float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.seen {
		return nil
	}
	s := f.at.Seconds()
	return &s
}

// measured takes the knee when the sweep found one, else the best step.
func measured(res *loadgen.Result) Measured {
	if k := res.Knee; k != nil {
		return Measured{Ceiling: k.MeasuredCeiling, From: "knee", Step: k.Load}
	}
	i := bestStep(res)
	if i < 0 {
		return Measured{}
	}
	s := res.Steps[i]
	return Measured{Ceiling: s.Figures.Throughput, From: "best step", Step: s.Load}
}

func failuresOf(t loadgen.Summary, first *float64) Failures {
	f := Failures{Requests: t.Requests, Failed: t.Requests - t.Passed, ByKind: map[string]int64{}, FirstAfterSec: first}
	for k, n := range t.Errors {
		if n > 0 {
			f.ByKind[k] = n
		}
	}
	if f.Requests > 0 {
		f.Rate = float64(f.Failed) / float64(f.Requests)
	}
	return f
}

func maxVUs(p loadgen.Plan) int {
	n := 1
	for _, s := range p.Steps {
		n = max(n, s.VUs)
	}
	return n
}

func mergeEnv(base, over map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// n8nVersion is the version main's /metrics states, when the hook printed
// main-metrics; a failed read is logged and leaves it empty.
func (r *Runner) n8nVersion(ctx context.Context, eps endpoints.Endpoints) string {
	url, ok := eps["main-metrics"]
	if !ok {
		return ""
	}
	v, err := (&snapshot.Reader{URL: url, Client: r.Client}).N8nVersion(ctx)
	if err != nil {
		r.logf("  n8n version unread: %v", err)
	}
	return v
}
