package report

import (
	"strings"
	"testing"
)

// A failed case's label is red; tooltips give the ceilings per second.
func TestCeilingChartMarksFailedCases(t *testing.T) {
	svg := ceilingChart(sampleExperiment(t).Cases).SVG()
	for _, want := range []string{
		`class="xtick">limit-5<`,
		`class="xtick" style="fill:#c62828;font-weight:600">limit-10|x<`,
		"limit-5 measured ceiling (passing): 4.600/s",
		"limit-10|x exporter prediction: 9.430/s",
		`stroke-dasharray="6 4"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q:\n%s", want, svg)
		}
	}
}
