package report

import (
	"fmt"
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// ceilingChart draws, per case, the measured ceiling as a bar, the
// exporter's published ceiling and the MVA's prediction at the measured
// step as dashed lines with points, on the sweep reports' chart and
// colours so an experiment report reads like a sweep report; a failed
// case's label is red.
func ceilingChart(cases []experiment.CaseResult) Chart {
	c := Chart{
		Title: "Measured vs the exporter's ceiling and the MVA, per case", YLabel: "requests per second", Mark: -1,
		YFmt:        func(v float64) string { return fmt.Sprintf("%.3g", v) },
		TipFmt:      func(v float64) string { return fmt.Sprintf("%.3f/s", v) },
		AlertLabels: map[int]bool{},
	}
	measured := Series{Name: "measured ceiling (passing)", Color: colPass}
	ceiling := Series{Name: "exporter's ceiling (bound)", Color: colCeiling, Dashed: true}
	mva := Series{Name: "MVA at the measured step", Color: colPredict, Dashed: true}
	for i, cr := range cases {
		c.Labels = append(c.Labels, cr.Name)
		c.AlertLabels[i] = !cr.Passed
		measured.Values = append(measured.Values, cr.Measured.Ceiling)
		m := caseModel(cr)
		if m == nil {
			m = &experiment.StepModel{}
		}
		ceiling.Values = append(ceiling.Values, orNaN(m.Ceiling))
		mva.Values = append(mva.Values, orNaN(m.MVA))
	}
	c.Bars, c.Lines = []Series{measured}, []Series{ceiling}
	if hasValue(mva.Values) {
		c.Lines = append(c.Lines, mva)
	}
	return c
}

// orNaN leaves a figure the model lacks (0) out of a chart.
func orNaN(v float64) float64 {
	if v <= 0 {
		return math.NaN()
	}
	return v
}
