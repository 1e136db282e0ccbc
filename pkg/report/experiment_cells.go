package report

import (
	"fmt"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Cell formatters shared by the experiment table, Markdown and HTML views,
// so the three show the same figures the same way.

const mib = 1 << 20

func perSec(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f/s", v)
}

// caseModel is the case's model at its measured step; a result written
// before the bound analysis gets the read after the load.
func caseModel(c experiment.CaseResult) *experiment.StepModel {
	if c.Model != nil {
		return c.Model
	}
	p := c.Predicted
	if p == nil {
		return nil
	}
	m := &experiment.StepModel{Step: c.Measured.Step, Measured: c.Measured.Ceiling, Ceiling: p.Ceiling, Binding: p.Binding,
		SlotCeiling: p.SlotCeiling, Source: experiment.FromAfterLoad}
	if m.Binding == "" {
		m.Binding = p.Bottleneck
	}
	if m.Ceiling > 0 {
		m.MeasuredOverCeiling = m.Measured / m.Ceiling
	}
	return m
}

// modelCell formats one figure of the case's model, "-" when it has none.
func modelCell(f func(*experiment.StepModel) string) func(experiment.CaseResult) string {
	return func(c experiment.CaseResult) string {
		if m := caseModel(c); m != nil {
			return f(m)
		}
		return "-"
	}
}

// ratio3 is a ratio to three decimals, "-" when it is unknown.
func ratio3(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

var (
	ceilingCell      = modelCell(func(m *experiment.StepModel) string { return perSec(m.Ceiling) })
	ceilingRatioCell = modelCell(func(m *experiment.StepModel) string { return ratio3(m.MeasuredOverCeiling) })
	bindingCell      = modelCell(func(m *experiment.StepModel) string { return orDash(m.Binding) })
	mvaCell          = modelCell(func(m *experiment.StepModel) string { return perSec(m.MVA) })
	mvaRatioCell     = modelCell(func(m *experiment.StepModel) string { return ratio3(m.MVAOverMeasured) })
)

// stepModelCells are a sweep step's ceiling, measured ÷ ceiling, binding
// resource, MVA and MVA ÷ measured, from the exporter read at its end.
func stepModelCells(s loadgen.StepResult) []string {
	m := experiment.StepModelOf(s, nil)
	if m == nil {
		return []string{"-", "-", "-", "-", "-"}
	}
	return []string{perSec(m.Ceiling), ratio3(m.MeasuredOverCeiling), orDash(m.Binding), perSec(m.MVA), ratio3(m.MVAOverMeasured)}
}

// stepModelHeads name stepModelCells.
var stepModelHeads = []string{"ceiling", "measured÷ceiling", "binding", "MVA", "MVA÷measured"}

// measuredCell is the throughput the model is set against: the best
// step's, else the measured ceiling.
func measuredCell(c experiment.CaseResult) string {
	if c.Model != nil {
		return perSec(c.Model.Measured)
	}
	return perSec(c.Measured.Ceiling)
}

func taskCell(c experiment.CaseResult) string {
	if c.Probe == nil || c.Probe.MeanTaskSeconds <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", c.Probe.MeanTaskSeconds)
}

// stageCell is a stage's service time and where it came from, or "not
// measured" when the exporter had none.
func stageCell(seconds float64, source string) string {
	if seconds <= 0 {
		return "not measured"
	}
	if source == "" {
		return fmt.Sprintf("%.3f s", seconds)
	}
	return fmt.Sprintf("%.3f s (%s)", seconds, source)
}

func runningCell(c experiment.CaseResult) string {
	if c.Probe == nil {
		return "-"
	}
	return fmt.Sprintf("%g / %g", c.Probe.RunningMax, c.Probe.RunningMedian)
}

func failCell(c experiment.CaseResult) string {
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
func memoryCell(c experiment.CaseResult) string {
	var parts []string
	for _, role := range []string{"runner", "worker", "main"} {
		if rise, name := experiment.LargestRise(c.Memory, role); name != "" {
			parts = append(parts, fmt.Sprintf("%s %+.0f MiB", role, float64(rise)/mib))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func oomCell(c experiment.CaseResult) string {
	killed := experiment.OOMKilled(c.Memory)
	if len(killed) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (cost %d failed requests)", strings.Join(killed, ", "), c.Failures.Failed)
}

func loadCell(c experiment.CaseResult) string {
	if c.Sweep == nil {
		return "-"
	}
	labels := make([]string, len(c.Sweep.Steps))
	for i, s := range c.Sweep.Steps {
		labels[i] = s.Load.Label()
	}
	return strings.Join(labels, ",")
}

func checksCell(c experiment.CaseResult) string {
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
// failures before throughput, throughput before the model: the published
// ceiling (the bound over every resource), measured ÷ ceiling and the
// resource that binds, then the MVA's prediction, all at the best step
// (the highest passing throughput), where the checks read.
var caseColumns = []struct {
	head string
	cell func(experiment.CaseResult) string
}{
	{"case", func(c experiment.CaseResult) string { return c.Name }},
	{"load", loadCell},
	{"failed", failCell},
	{"measured", measuredCell},
	{"ceiling", ceilingCell},
	{"measured÷ceiling", ceilingRatioCell},
	{"binding", bindingCell},
	{"MVA", mvaCell},
	{"MVA÷measured", mvaRatioCell},
	{"task time", taskCell},
	{"running max/med", runningCell},
	{"memory rise", memoryCell},
	{"OOM", oomCell},
	{"checks", checksCell},
}

func caseHeads() []string {
	out := make([]string, len(caseColumns))
	for i, c := range caseColumns {
		out[i] = c.head
	}
	return out
}

func caseCells(c experiment.CaseResult) []string {
	out := make([]string, len(caseColumns))
	for i, col := range caseColumns {
		out[i] = col.cell(c)
	}
	return out
}

// FailedChecks lists "case: check want …, got …" for every failed check
// and every case error.
func FailedChecks(r *experiment.Result) []string {
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
