package experiment

import (
	"fmt"
	"math"
)

const mib = 1 << 20

// Expect holds a case's acceptance checks. Unset fields are not checked.
type Expect struct {
	// Within is the largest allowed |measured / predicted − 1|.
	Within     *float64 `yaml:"within" json:"within,omitempty"`
	Bottleneck string   `yaml:"bottleneck" json:"bottleneck,omitempty"`
	// FailRateMin and FailRateMax bound the share of failed requests.
	FailRateMin *float64 `yaml:"fail_rate_min" json:"fail_rate_min,omitempty"`
	FailRateMax *float64 `yaml:"fail_rate_max" json:"fail_rate_max,omitempty"`
	// RunnerWSRiseMinMiB: the largest runner working-set rise (peak −
	// baseline) must reach this; WorkerWSRiseMaxMiB: no worker may rise
	// more.
	RunnerWSRiseMinMiB *float64 `yaml:"runner_ws_rise_min_mib" json:"runner_ws_rise_min_mib,omitempty"`
	WorkerWSRiseMaxMiB *float64 `yaml:"worker_ws_rise_max_mib" json:"worker_ws_rise_max_mib,omitempty"`
	// OOM: whether some container is OOM-killed during the run.
	OOM *bool `yaml:"oom" json:"oom,omitempty"`
	// WorkersWithoutRunner: what the exporter reported before the first
	// failed request (read when the case settled, before any load).
	WorkersWithoutRunner *int `yaml:"workers_without_runner" json:"workers_without_runner,omitempty"`
	// MeasuredOverCeiling bounds the best step's passing throughput ÷ the
	// ceiling the exporter published at that step's end.
	MeasuredOverCeiling *Range `yaml:"measured_over_ceiling" json:"measured_over_ceiling,omitempty"`
	// BindingKind: the resource binding at the best step is of this kind
	// (its name starts "cpu:" or "slots:").
	BindingKind string `yaml:"binding_kind" json:"binding_kind,omitempty"`
	// MVAWithin is the largest allowed |MVA prediction / measured − 1| at
	// every step of a closed-loop sweep.
	MVAWithin *float64 `yaml:"mva_within" json:"mva_within,omitempty"`
	// ModelAt is the step MeasuredOverCeiling and BindingKind read:
	// "best" (the default, the highest passing throughput) or "last" (the
	// most loaded, for a sweep that saturates there while a lighter step
	// measured more).
	ModelAt string `yaml:"model_at" json:"model_at,omitempty"`
}

// Range is an inclusive interval.
type Range struct {
	Min float64 `yaml:"min" json:"min"`
	Max float64 `yaml:"max" json:"max"`
}

func (e Expect) validate() error {
	if e.Within != nil && !(*e.Within > 0 && *e.Within <= 1) {
		return fmt.Errorf("expect.within %v: want more than 0 and at most 1", *e.Within)
	}
	switch e.Bottleneck {
	case "", "runner", "worker", "none":
	default:
		return fmt.Errorf("expect.bottleneck %q: want runner, worker or none", e.Bottleneck)
	}
	for name, v := range map[string]*float64{"fail_rate_min": e.FailRateMin, "fail_rate_max": e.FailRateMax} {
		if v != nil && !(*v >= 0 && *v <= 1) {
			return fmt.Errorf("expect.%s %v: want 0 to 1", name, *v)
		}
	}
	for name, v := range map[string]*float64{"runner_ws_rise_min_mib": e.RunnerWSRiseMinMiB, "worker_ws_rise_max_mib": e.WorkerWSRiseMaxMiB} {
		if v != nil && !(*v >= 0) {
			return fmt.Errorf("expect.%s %v: want 0 or more", name, *v)
		}
	}
	if e.WorkersWithoutRunner != nil && *e.WorkersWithoutRunner < 0 {
		return fmt.Errorf("expect.workers_without_runner %d: want 0 or more", *e.WorkersWithoutRunner)
	}
	return e.validateModel()
}

// Evaluate judges the checks against a finished case.
func (e Expect) Evaluate(c *CaseResult) []CheckResult {
	out := []CheckResult{}
	add := func(name, want, got string, ok bool, figure ...float64) {
		r := CheckResult{Name: name, Want: want, Got: got, Passed: ok}
		if len(figure) == 1 {
			r.Figure = &figure[0]
		}
		out = append(out, r)
	}
	if e.Within != nil {
		want := fmt.Sprintf("±%.1f%% of predicted", 100**e.Within)
		if c.Predicted != nil && c.Predicted.ForLoad > 0 {
			dev := c.Measured.Ceiling/c.Predicted.ForLoad - 1
			add("within", want, fmt.Sprintf("%+.1f%% (%.3f/s vs %.3f/s)", 100*dev, c.Measured.Ceiling, c.Predicted.ForLoad), math.Abs(dev) <= *e.Within, dev)
		} else {
			add("within", want, "no prediction", false)
		}
	}
	if e.Bottleneck != "" {
		got := "no prediction"
		if c.Predicted != nil {
			got = c.Predicted.Bottleneck
		}
		add("bottleneck", e.Bottleneck, got, got == e.Bottleneck)
	}
	e.failRate(c, add)
	e.memory(c, add)
	if e.WorkersWithoutRunner != nil {
		got, ok := "not read", false
		if c.Settled != nil {
			got, ok = fmt.Sprintf("%d %v", c.Settled.WorkersWithoutRunner, c.Settled.WithoutRunner), c.Settled.WorkersWithoutRunner == *e.WorkersWithoutRunner
		}
		add("workers_without_runner", fmt.Sprintf("%d before the first failure", *e.WorkersWithoutRunner), got, ok)
	}
	e.model(c, add)
	return out
}

// addFunc records one check; a numeric check passes its figure.
type addFunc func(name, want, got string, ok bool, figure ...float64)

func (e Expect) failRate(c *CaseResult, add addFunc) {
	f := c.Failures
	got := fmt.Sprintf("%.1f%% (%d of %d)", 100*f.Rate, f.Failed, f.Requests)
	ran := f.Requests > 0
	if e.FailRateMin != nil {
		add("fail_rate_min", fmt.Sprintf("≥ %.1f%%", 100**e.FailRateMin), got, ran && f.Rate >= *e.FailRateMin, f.Rate)
	}
	if e.FailRateMax != nil {
		add("fail_rate_max", fmt.Sprintf("≤ %.1f%%", 100**e.FailRateMax), got, ran && f.Rate <= *e.FailRateMax, f.Rate)
	}
}

func (e Expect) memory(c *CaseResult, add addFunc) {
	if e.RunnerWSRiseMinMiB != nil {
		rise, name := LargestRise(c.Memory, "runner")
		add("runner_ws_rise_min_mib", fmt.Sprintf("≥ %.0f MiB", *e.RunnerWSRiseMinMiB),
			fmt.Sprintf("%.0f MiB (%s)", float64(rise)/mib, name), name != "" && float64(rise) >= *e.RunnerWSRiseMinMiB*mib)
	}
	if e.WorkerWSRiseMaxMiB != nil {
		rise, name := LargestRise(c.Memory, "worker")
		add("worker_ws_rise_max_mib", fmt.Sprintf("≤ %.0f MiB", *e.WorkerWSRiseMaxMiB),
			fmt.Sprintf("%.0f MiB (%s)", float64(rise)/mib, name), name != "" && float64(rise) <= *e.WorkerWSRiseMaxMiB*mib)
	}
	if e.OOM != nil {
		killed := OOMKilled(c.Memory)
		got := "none"
		if len(killed) > 0 {
			got = fmt.Sprintf("%v, %d failed requests", killed, c.Failures.Failed)
		}
		add("oom", fmt.Sprintf("%v", *e.OOM), got, (len(killed) > 0) == *e.OOM)
	}
}

// LargestRise is the biggest working-set rise among containers of a role;
// name is empty when the run saw no such container.
func LargestRise(mem []ContainerMemory, role string) (int64, string) {
	var best int64
	name := ""
	for _, m := range mem {
		if m.Role == role && (name == "" || m.RiseBytes() > best) {
			best, name = m.RiseBytes(), m.Container
		}
	}
	return best, name
}

// OOMKilled names the containers OOM-killed during the run.
func OOMKilled(mem []ContainerMemory) []string {
	var out []string
	for _, m := range mem {
		if m.OOMKills > 0 || m.OOMKilled {
			out = append(out, m.Container)
		}
	}
	return out
}
