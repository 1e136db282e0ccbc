package autoscale

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

// HTML writes one self-contained page: per phase, replicas and the HPA's
// metric, then throughput against the exporter's ceiling, over time; and
// each check with its figures.
func (r *Record) HTML(w io.Writer) error {
	page := htmlPage{R: r, ChartCSS: report.ChartCSS}
	for _, p := range r.Phases {
		page.Phases = append(page.Phases, htmlPhase{P: p,
			Charts: []template.HTML{
				template.HTML(replicasChart(p).SVG()), // #nosec: built from escaped parts
				template.HTML(throughputChart(p, r.Demand).SVG()),
			}})
	}
	return pageTmpl.Execute(w, page)
}

type htmlPage struct {
	R        *Record
	ChartCSS template.CSS
	Phases   []htmlPhase
}

type htmlPhase struct {
	P      Phase
	Charts []template.HTML
}

// labels names every sample by its time, printing one in six on the axis.
func labels(p Phase) []string {
	out := make([]string, len(p.Samples))
	for i, s := range p.Samples {
		if i%6 == 0 {
			out[i] = fmt.Sprintf("%.0fs", s.T)
		}
	}
	return out
}

func series(p Phase, f func(Sample) float64) []float64 {
	out := make([]float64, len(p.Samples))
	for i, s := range p.Samples {
		out[i] = f(s)
	}
	return out
}

func replicasChart(p Phase) report.Chart {
	return report.Chart{
		Title:  p.Name + ": worker pods and the scaler's metric",
		YLabel: "pods / metric per pod",
		Labels: labels(p),
		Bars:   []report.Series{{Name: "ready pods", Color: "#90caf9", Values: series(p, func(s Sample) float64 { return float64(s.Ready) })}},
		Lines: []report.Series{
			{Name: "desired replicas", Color: "#1565c0", Values: series(p, func(s Sample) float64 { return float64(s.Replicas) })},
			{Name: "HPA metric", Color: "#e07b00", Values: series(p, func(s Sample) float64 { return s.Metric })},
			{Name: "HPA target", Color: "#e07b00", Dashed: true, Values: series(p, func(s Sample) float64 { return s.Target })},
		},
		Mark: -1, MinYMax: 2,
		YFmt: func(v float64) string { return fmt.Sprintf("%.1f", v) },
	}
}

func throughputChart(p Phase, demand float64) report.Chart {
	ceiling := series(p, func(s Sample) float64 {
		if s.Ceiling <= 0 {
			return math.NaN()
		}
		return s.Ceiling
	})
	return report.Chart{
		Title:  p.Name + ": throughput (load generator) and the ceiling (exporter)",
		YLabel: "executions/s",
		Labels: labels(p),
		Lines: []report.Series{
			{Name: "measured", Color: "#2e7d32", Values: series(p, func(s Sample) float64 { return s.Throughput })},
			{Name: "exporter's ceiling", Color: "#c62828", Dashed: true, Values: ceiling},
			{Name: "its slot ceiling", Color: "#7b1fa2", Dashed: true, Values: series(p, func(s Sample) float64 { return s.SlotCeiling })},
		},
		Ref:  &report.Series{Name: fmt.Sprintf("load's demand %.2f/s", demand), Color: "#555", Values: []float64{demand}},
		Mark: -1, MinYMax: 2,
		YFmt: func(v float64) string { return fmt.Sprintf("%.1f", v) },
	}
}

var pageTmpl = template.Must(template.New("autoscale").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>KEDA: queue length against saturation</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1000px;margin:24px auto;color:#222;padding:0 12px}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}
.pass{color:#2e7d32}.fail{color:#c62828;font-weight:600}
{{.ChartCSS}}
</style></head><body>
<h1>KEDA: queue length against saturation</h1>
<p>n8n {{.R.N8nVersion}}, KEDA {{.R.KEDAVersion}}. {{.R.Setup}}</p>
<p>{{.R.VUs}} VUs; one pod's ceiling {{printf "%.2f" .R.PodCeiling}}/s; the load's demand {{printf "%.2f" .R.Demand}}/s.</p>
{{range .Phases}}<h2>{{.P.Name}}: {{.P.Scaler}}</h2>
{{range .Charts}}{{.}}{{end}}
<table><tr><th>check</th><th>result</th><th>figures</th></tr>
{{range .P.Checks}}<tr><td>{{.Name}}</td><td class="{{if .Pass}}pass">pass{{else}}fail">FAIL{{end}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>
{{end}}</body></html>
`))
