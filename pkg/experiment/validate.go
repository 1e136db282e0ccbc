package experiment

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Defaults for fields a spec leaves out.
const (
	defaultApplyTimeout  = 10 * time.Minute
	defaultSettleTimeout = 3 * time.Minute
	defaultSettlePoll    = 2 * time.Second
	defaultSampleEvery   = time.Second
	defaultStep          = 20 * time.Second
	defaultWarmup        = 5 * time.Second
	defaultTimeout       = 60 * time.Second
	maxCases             = 50
)

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

func (s *Spec) defaults() {
	if s.Apply.Kind == "" {
		s.Apply.Kind = "command"
	}
	setDur(&s.Apply.Timeout, defaultApplyTimeout)
	setDur(&s.Settle.Timeout, defaultSettleTimeout)
	setDur(&s.Settle.Poll, defaultSettlePoll)
	setDur(&s.SampleEvery, defaultSampleEvery)
	setDur(&s.Target.Timeout, defaultTimeout)
	if s.Target.Method == "" {
		s.Target.Method = "POST"
	}
	if s.Target.UploadMode == "" {
		s.Target.UploadMode = "raw"
	}
	if s.Load.Model == "" {
		s.Load.Model = string(loadgen.Closed)
	}
	setDur(&s.Load.Step, defaultStep)
	setDur(&s.Load.Warmup, defaultWarmup)
}

func setDur(d *Duration, def time.Duration) {
	if *d == 0 {
		*d = Duration(def)
	}
}

// Validate checks the whole spec; every message names the field at fault.
func (s *Spec) Validate() error {
	if !namePattern.MatchString(s.Name) {
		return fmt.Errorf("name %q: want lower-case letters, digits, '.', '_' or '-'", s.Name)
	}
	if err := s.Apply.validate(); err != nil {
		return err
	}
	if s.Settle.Timeout <= 0 || s.Settle.Poll <= 0 || s.SampleEvery <= 0 {
		return fmt.Errorf("settle.timeout, settle.poll and sample_every must be positive")
	}
	if len(s.Cases) == 0 || len(s.Cases) > maxCases {
		return fmt.Errorf("cases: want 1 to %d, got %d", maxCases, len(s.Cases))
	}
	seen := map[string]bool{}
	for i, c := range s.Cases {
		at := fmt.Sprintf("cases[%d]", i)
		if !namePattern.MatchString(c.Name) {
			return fmt.Errorf("%s.name %q: want lower-case letters, digits, '.', '_' or '-'", at, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("%s.name %q: used twice", at, c.Name)
		}
		seen[c.Name] = true
		if err := s.validateCase(c); err != nil {
			return fmt.Errorf("%s (%s).%w", at, c.Name, err)
		}
	}
	return nil
}

func (a Apply) validate() error {
	switch a.Kind {
	case "command":
		if len(a.Command) == 0 {
			return fmt.Errorf("apply.command: required for kind %q: the argv that puts a case in place", a.Kind)
		}
	case "none":
	default:
		return fmt.Errorf("apply.kind %q: want command or none", a.Kind)
	}
	if a.Timeout <= 0 {
		return fmt.Errorf("apply.timeout must be positive")
	}
	return nil
}

func (s *Spec) validateCase(c Case) error {
	t := s.CaseTarget(c)
	if err := t.validate(s.Apply.Kind); err != nil {
		return err
	}
	p, err := s.CaseLoad(c).Plan()
	if err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if err := c.Expect.validate(); err != nil {
		return err
	}
	if c.Expect.MVAWithin != nil && p.Model != loadgen.Closed {
		return fmt.Errorf("expect.mva_within: the MVA predicts closed loads (vus), not rates")
	}
	return s.validateSeed(c)
}

func (t Target) validate(applyKind string) error {
	if len(t.URLs) == 0 && applyKind == "none" {
		return fmt.Errorf("target.urls: required when apply.kind is none (no hook prints a webhook)")
	}
	if t.Exporter == "" && applyKind == "none" {
		return fmt.Errorf("target.exporter: required when apply.kind is none")
	}
	if t.Timeout <= 0 {
		return fmt.Errorf("target.timeout must be positive")
	}
	if err := loadgen.CheckMethod(t.Method); err != nil {
		return fmt.Errorf("target.method: %w", err)
	}
	if t.Upload != "" {
		if _, err := loadgen.ParseSize(t.Upload); err != nil {
			return fmt.Errorf("target.upload: %w", err)
		}
		if t.UploadMode != "raw" && t.UploadMode != "multipart" {
			return fmt.Errorf("target.upload_mode %q: want raw or multipart", t.UploadMode)
		}
	}
	for _, c := range t.Checks {
		if _, err := loadgen.ParseFieldCheck(c); err != nil {
			return fmt.Errorf("target.checks: %w", err)
		}
	}
	if _, err := t.body(); err != nil {
		return fmt.Errorf("target.body: %w", err)
	}
	return nil
}

func (s *Spec) validateSeed(c Case) error {
	if len(c.Seed) > 0 && s.Seed == nil {
		return fmt.Errorf("seed: the experiment has no seed block naming its source and columns")
	}
	for k := range c.Seed {
		if !slices.Contains(s.Seed.Columns, k) {
			return fmt.Errorf("seed.%s: not one of seed.columns %v", k, s.Seed.Columns)
		}
	}
	return nil
}

// CaseTarget is the experiment's target with the case's fields laid over.
func (s *Spec) CaseTarget(c Case) Target {
	t := s.Target
	o := c.Target
	if o == nil {
		return t
	}
	overStr(&t.Exporter, o.Exporter)
	overStr(&t.Method, o.Method)
	overStr(&t.Upload, o.Upload)
	overStr(&t.UploadMode, o.UploadMode)
	overSlice(&t.URLs, o.URLs)
	overSlice(&t.Paths, o.Paths)
	overSlice(&t.ExpectStatus, o.ExpectStatus)
	overSlice(&t.Checks, o.Checks)
	if o.Body != nil {
		t.Body = o.Body
	}
	if o.Timeout > 0 {
		t.Timeout = o.Timeout
	}
	return t
}

// CaseLoad is the experiment's load with the case's fields laid over.
func (s *Spec) CaseLoad(c Case) Load {
	l := s.Load
	o := c.Load
	if o == nil {
		return l
	}
	overStr(&l.Model, o.Model)
	overSlice(&l.VUs, o.VUs)
	overSlice(&l.Rates, o.Rates)
	if o.Step > 0 {
		l.Step = o.Step
	}
	if o.Warmup > 0 {
		l.Warmup = o.Warmup
	}
	if o.MaxInFlight > 0 {
		l.MaxInFlight = o.MaxInFlight
	}
	return l
}

func overStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func overSlice[T any](dst *[]T, v []T) {
	if len(v) > 0 {
		*dst = v
	}
}

// Plan turns the load into a loadgen plan.
func (l Load) Plan() (loadgen.Plan, error) {
	p := loadgen.Plan{Model: loadgen.Model(l.Model), Step: l.Step.D(), Warmup: l.Warmup.D(), MaxInFlight: l.MaxInFlight}
	switch p.Model {
	case loadgen.Closed:
		if len(l.Rates) > 0 {
			return p, fmt.Errorf("load.rates: a closed load takes vus")
		}
		p.Steps = loadgen.ClosedSteps(l.VUs)
	case loadgen.Open:
		if len(l.VUs) > 0 {
			return p, fmt.Errorf("load.vus: an open load takes rates")
		}
		p.Steps = loadgen.OpenSteps(l.Rates)
	default:
		return p, fmt.Errorf("load.model %q: want closed or open", l.Model)
	}
	return p, nil
}
