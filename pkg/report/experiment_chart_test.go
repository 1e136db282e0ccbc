package report

import (
	"strings"
	"testing"
)

// A failed case's label is red; tooltips give the ceilings per second;
// a case without an MVA figure has no MVA point.
func TestCeilingChartMarksFailedCases(t *testing.T) {
	svg := ceilingChart(sampleExperiment(t).Cases).SVG()
	for _, want := range []string{
		`class="xtick">limit-5<`,
		`class="xtick" style="fill:#c62828;font-weight:600">limit-10|x<`,
		"limit-5 measured ceiling (passing): 4.600/s",
		"limit-10|x exporter&#39;s ceiling (bound): 9.430/s",
		"limit-5 MVA at the measured step: 4.700/s",
		`stroke-dasharray="6 4"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q:\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "limit-10|x MVA") {
		t.Error("a case without MVA has an MVA point")
	}
}
