package report

import (
	"fmt"
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// ceilingChart draws, per case, the measured ceiling as a bar and the
// prediction as a dashed line with points, on the sweep reports' chart and
// colours so an experiment report reads like a sweep report; a failed
// case's label is red.
func ceilingChart(cases []experiment.CaseResult) Chart {
	c := Chart{
		Title: "Measured vs predicted ceiling per case", YLabel: "requests per second", Mark: -1,
		YFmt:        func(v float64) string { return fmt.Sprintf("%.3g", v) },
		TipFmt:      func(v float64) string { return fmt.Sprintf("%.3f/s", v) },
		AlertLabels: map[int]bool{},
	}
	measured := Series{Name: "measured ceiling (passing)", Color: colPass}
	predicted := Series{Name: "exporter prediction", Color: colPredict, Dashed: true}
	for i, cr := range cases {
		c.Labels = append(c.Labels, cr.Name)
		c.AlertLabels[i] = !cr.Passed
		measured.Values = append(measured.Values, cr.Measured.Ceiling)
		p := predictedOf(cr)
		if p <= 0 {
			p = math.NaN()
		}
		predicted.Values = append(predicted.Values, p)
	}
	c.Bars, c.Lines = []Series{measured}, []Series{predicted}
	return c
}

func predictedOf(c experiment.CaseResult) float64 {
	if c.Predicted == nil {
		return 0
	}
	return c.Predicted.ForLoad
}
