package report

import (
	"fmt"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
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

func predictedCell(c experiment.CaseResult) string {
	if c.Predicted == nil || c.Predicted.ForLoad <= 0 {
		return "-"
	}
	return perSec(c.Predicted.ForLoad)
}

func ratioCell(c experiment.CaseResult) string {
	p := predictedOf(c)
	if p <= 0 || c.Measured.Ceiling <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", c.Measured.Ceiling/p)
}

func bottleneckCell(c experiment.CaseResult) string {
	if c.Predicted == nil || c.Predicted.Bottleneck == "" {
		return "-"
	}
	return c.Predicted.Bottleneck
}

func taskCell(c experiment.CaseResult) string {
	if c.Probe == nil || c.Probe.MeanTaskSeconds <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", c.Probe.MeanTaskSeconds)
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
// failures before throughput, throughput before the model.
var caseColumns = []struct {
	head string
	cell func(experiment.CaseResult) string
}{
	{"case", func(c experiment.CaseResult) string { return c.Name }},
	{"load", loadCell},
	{"failed", failCell},
	{"measured", func(c experiment.CaseResult) string { return perSec(c.Measured.Ceiling) }},
	{"predicted", predictedCell},
	{"ratio", ratioCell},
	{"bottleneck", bottleneckCell},
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

// failedChecks lists "case: check want …, got …" for every failed check
// and every case error.
func failedChecks(r *experiment.Result) []string {
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
