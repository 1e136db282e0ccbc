package experiment

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// The chart follows pkg/report's geometry, colours and CSS classes, so an
// experiment report reads like a sweep report. (pkg/report keeps its chart
// type unexported; this is the one chart it lacks: cases, not steps.)
const (
	svgW, svgH     = 960.0, 330.0
	svgL, svgR     = 78.0, 24.0
	svgT, svgB     = 58.0, 44.0
	svgTicks       = 5
	colMeasured    = "#2f6fb0"
	colPredicted   = "#7a7a7a"
	colFailedCheck = "#c62828"
)

// ceilingChart draws, per case, the measured ceiling as a bar and the
// prediction as a dashed line with points; a failed case's label is red.
func ceilingChart(cases []CaseResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="Measured vs predicted ceiling per case">`, svgW, svgH)
	fmt.Fprintf(&b, `<text x="%.0f" y="22" class="title">Measured vs predicted ceiling per case</text>`, svgL)
	top := 0.0
	for _, c := range cases {
		top = max(top, c.Measured.Ceiling, predictedOf(c))
	}
	yMax := roundUp(top * 1.08)
	plotW, plotH := svgW-svgL-svgR, svgH-svgT-svgB
	band := plotW / float64(max(1, len(cases)))
	y := func(v float64) float64 { return svgT + plotH*(1-v/yMax) }
	cx := func(i int) float64 { return svgL + band*(float64(i)+0.5) }
	for i := 0; i <= svgTicks; i++ {
		v := yMax * float64(i) / svgTicks
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, svgL, svgW-svgR, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="ytick">%.3g</text>`, svgL-8, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="14" y="%.1f" class="ylabel" transform="rotate(-90 14 %.1f)">requests per second</text>`, svgT+plotH/2, svgT+plotH/2)
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axis"/>`, svgL, svgW-svgR, svgT+plotH, svgT+plotH)
	var pts []string
	for i, c := range cases {
		bw := band * 0.55
		fill := ""
		if !c.Passed {
			fill = fmt.Sprintf(` style="fill:%s;font-weight:600"`, colFailedCheck) // CSS class fill beats the attribute
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="xtick"%s>%s</text>`, cx(i), svgH-svgB+18, fill, html.EscapeString(c.Name))
		if m := c.Measured.Ceiling; m > 0 {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s measured: %.3f/s</title></rect>`,
				cx(i)-bw/2, y(m), bw, y(0)-y(m), colMeasured, html.EscapeString(c.Name), m)
		}
		if p := predictedOf(c); p > 0 {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", cx(i), y(p)))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s predicted: %.3f/s</title></circle>`, cx(i), y(p), colPredicted, html.EscapeString(c.Name), p)
		}
	}
	if len(pts) > 1 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-dasharray="6 4"/>`, strings.Join(pts, " "), colPredicted)
	}
	legend(&b)
	b.WriteString(`</svg>`)
	return b.String()
}

func legend(b *strings.Builder) {
	x := svgL
	for _, it := range [][2]string{{"measured ceiling (passing)", colMeasured}, {"exporter prediction", colPredicted}} {
		fmt.Fprintf(b, `<rect x="%.1f" y="34" width="12" height="12" fill="%s"/><text x="%.1f" y="44" class="legend">%s</text>`, x, it[1], x+16, it[0])
		x += 26 + 7.5*float64(len(it[0]))
	}
}

func predictedOf(c CaseResult) float64 {
	if c.Predicted == nil {
		return 0
	}
	return c.Predicted.ForLoad
}

// roundUp rounds to 1, 2, 2.5 or 5 times a power of ten.
func roundUp(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}
