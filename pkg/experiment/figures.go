package experiment

import (
	"fmt"
	"strings"
)

// Cell formatters shared by the table, Markdown and HTML views, so the
// three show the same figures the same way.

func perSec(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f/s", v)
}

func (c CaseResult) predictedCell() string {
	if c.Predicted == nil || c.Predicted.ForLoad <= 0 {
		return "-"
	}
	return perSec(c.Predicted.ForLoad)
}

func (c CaseResult) ratioCell() string {
	p := predictedOf(c)
	if p <= 0 || c.Measured.Ceiling <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", c.Measured.Ceiling/p)
}

func (c CaseResult) bottleneckCell() string {
	if c.Predicted == nil || c.Predicted.Bottleneck == "" {
		return "-"
	}
	return c.Predicted.Bottleneck
}

func (c CaseResult) taskCell() string {
	if c.Probe == nil || c.Probe.MeanTaskSeconds <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", c.Probe.MeanTaskSeconds)
}

func (c CaseResult) runningCell() string {
	if c.Probe == nil {
		return "-"
	}
	return fmt.Sprintf("%g / %g", c.Probe.RunningMax, c.Probe.RunningMedian)
}

func (c CaseResult) failCell() string {
	if c.Failures.Requests == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.1f%% (%d)", 100*c.Failures.Rate, c.Failures.Failed)
	if f := c.Failures.FirstAfterSec; f != nil {
		s += fmt.Sprintf(" first at %.0fs", *f)
	}
	return s
}

// memoryCell lists the rise of each role's largest riser.
func (c CaseResult) memoryCell() string {
	var parts []string
	for _, role := range []string{"runner", "worker", "main"} {
		if rise, name := largestRise(c.Memory, role); name != "" {
			parts = append(parts, fmt.Sprintf("%s %+.0f MiB", role, float64(rise)/mib))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func (c CaseResult) oomCell() string {
	killed := OOMKilled(c.Memory)
	if len(killed) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (cost %d failed requests)", strings.Join(killed, ", "), c.Failures.Failed)
}

func (c CaseResult) loadCell() string {
	if c.Sweep == nil {
		return "-"
	}
	labels := make([]string, len(c.Sweep.Steps))
	for i, s := range c.Sweep.Steps {
		labels[i] = s.Load.Label()
	}
	return strings.Join(labels, ",")
}

func (c CaseResult) checksCell() string {
	if c.Error != "" {
		return "ERROR"
	}
	failed := 0
	for _, ch := range c.Checks {
		if !ch.Passed {
			failed++
		}
	}
	switch {
	case len(c.Checks) == 0:
		return "recorded"
	case failed == 0:
		return fmt.Sprintf("pass (%d)", len(c.Checks))
	default:
		return fmt.Sprintf("FAIL (%d of %d)", failed, len(c.Checks))
	}
}

// caseColumns is the per-case row every view shows, in reading order:
// failures before throughput, throughput before the model.
var caseColumns = []struct {
	head string
	cell func(CaseResult) string
}{
	{"case", func(c CaseResult) string { return c.Name }},
	{"load", CaseResult.loadCell},
	{"failed", CaseResult.failCell},
	{"measured", func(c CaseResult) string { return perSec(c.Measured.Ceiling) }},
	{"predicted", CaseResult.predictedCell},
	{"ratio", CaseResult.ratioCell},
	{"bottleneck", CaseResult.bottleneckCell},
	{"task time", CaseResult.taskCell},
	{"running max/med", CaseResult.runningCell},
	{"memory rise", CaseResult.memoryCell},
	{"OOM", CaseResult.oomCell},
	{"checks", CaseResult.checksCell},
}

func heads() []string {
	out := make([]string, len(caseColumns))
	for i, c := range caseColumns {
		out[i] = c.head
	}
	return out
}

func (c CaseResult) cells() []string {
	out := make([]string, len(caseColumns))
	for i, col := range caseColumns {
		out[i] = col.cell(c)
	}
	return out
}

// FailedChecks lists "case: check want …, got …" for every failed check
// and every case error.
func (r *Result) FailedChecks() []string {
	var out []string
	for _, c := range r.Cases {
		if c.Error != "" {
			out = append(out, fmt.Sprintf("%s: error: %s", c.Name, c.Error))
		}
		for _, ch := range c.Checks {
			if !ch.Passed {
				out = append(out, fmt.Sprintf("%s: %s want %s, got %s", c.Name, ch.Name, ch.Want, ch.Got))
			}
		}
	}
	return out
}
