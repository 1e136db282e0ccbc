package report

import (
	"html/template"
	"io"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// ExperimentHTML writes an experiment as one self-contained page: inline
// styles and SVG, nothing fetched.
func ExperimentHTML(w io.Writer, r *experiment.Result) error {
	page := experimentPage{Res: r, Chart: template.HTML(ceilingChart(r.Cases).SVG()), ChartCSS: ChartCSS, // #nosec: built from escaped parts
		Head: caseHeads(), Failed: FailedChecks(r), OnN8n: onN8n(r)}
	for _, c := range r.Cases {
		page.Rows = append(page.Rows, experimentRow{Case: c, Cells: caseCells(c)})
	}
	return experimentTmpl.Execute(w, page)
}

type experimentPage struct {
	Res      *experiment.Result
	Chart    template.HTML
	ChartCSS template.CSS
	Head     []string
	Rows     []experimentRow
	Failed   []string
	OnN8n    string
}

type experimentRow struct {
	Case  experiment.CaseResult
	Cells []string
}

var experimentTmpl = template.Must(template.New("experiment").Funcs(template.FuncMap{
	"pct": func(v float64) float64 { return 100 * v }, "mib": func(v int64) float64 { return float64(v) / mib },
	"model": stepModelCells, "modelHeads": func() []string { return stepModelHeads }, "stage": stageCell,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loadctl experiment {{.Res.Spec.Name}}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:18px 0 6px}
.sub{color:#555;margin:0 0 14px}.verdict{font-size:17px;font-weight:600;background:#fff4e5;border-left:4px solid #e07b00;padding:8px 12px}
.warn{background:#fdecea;border-left:4px solid #c62828;padding:8px 12px 8px 28px;overflow-wrap:anywhere}
{{.ChartCSS}}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:12px;width:100%}th,td{padding:3px 4px;border-bottom:1px solid #e5e5e5;text-align:right;white-space:nowrap}
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}
.ok{color:#2e7d32}.fail{color:#c62828;font-weight:600}code{font-size:13px}
</style></head><body>
<h1>loadctl experiment: {{.Res.Spec.Name}}</h1>
<p class="sub">{{.Res.Spec.Description}} · started {{.Res.Started.Format "2006-01-02 15:04:05 MST"}}{{with .OnN8n}}{{.}}{{end}} · schema {{.Res.Schema}}</p>
<p class="verdict">{{if .Res.Passed}}<span class="ok">Every check passed</span>{{else}}<span class="fail">Some checks failed</span>{{end}} · {{len .Res.Cases}} of {{len .Res.Spec.Cases}} cases ran</p>
{{with .Failed}}<ul class="warn">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{.Chart}}
<h2>Cases (read in this order: failures → throughput → model)</h2>
<p class="sub">measured: passing requests per second at the best step (the highest), where the checks read · ceiling: the exporter's published ceiling, the lowest servers ÷ demand over every resource, read at that step's end · binding: the resource that sets it · MVA: mean value analysis for that step's VUs (demands from the exporter, the one-request latency from the sweep's lowest step)</p>
<div class="scroll"><table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{range .Rows}}{{with .Case}}<h3>{{.Name}}{{with .Group}} · {{.}}{{end}}</h3>
<p>{{with .Error}}<span class="fail">error: {{.}}</span><br>{{end}}env {{range $k, $v := .Env}}<code>{{$k}}={{$v}}</code> {{end}}· settled after {{printf "%.0f" .SettleSec}} s{{with .Predicted}} · service time job {{stage .JobSeconds .JobSource}}, task {{stage .TaskSeconds .TaskSource}}{{end}}</p>
{{with .Checks}}<ul>{{range .}}<li><code>{{.Name}}</code> want {{.Want}}, got {{.Got}}: {{if .Passed}}<span class="ok">ok</span>{{else}}<span class="fail">FAILED</span>{{end}}</li>{{end}}</ul>{{end}}
{{with .Sweep}}<div class="scroll"><table><thead><tr><th>step</th><th>pass rate</th><th>errors</th><th>passing req/s</th><th>p50</th><th>p95</th><th>mean in flight</th>{{range modelHeads}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Steps}}<tr><td>{{.Load.Label}}</td><td>{{printf "%.1f%%" (pct .Figures.PassRate)}}</td><td>{{range $k, $n := .Figures.Errors}}{{if $n}}{{$k}} {{$n}} {{end}}{{end}}</td><td>{{printf "%.3f" .Figures.Throughput}}</td><td>{{printf "%.3f s" .Figures.Latency.P50}}</td><td>{{printf "%.3f s" .Figures.Latency.P95}}</td><td>{{printf "%.1f" .Figures.MeanInFlight}}</td>{{range model .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
{{with .Memory}}<div class="scroll"><table><thead><tr><th>container</th><th>role</th><th>baseline MiB</th><th>peak MiB</th><th>limit MiB</th><th>OOM kills</th><th>restarts</th></tr></thead><tbody>
{{range .}}<tr><td>{{.Container}}</td><td>{{.Role}}</td><td>{{printf "%.0f" (mib .BaselineBytes)}}</td><td>{{printf "%.0f" (mib .PeakBytes)}}</td><td>{{printf "%.0f" (mib .LimitBytes)}}</td><td>{{.OOMKills}}{{if .OOMKilled}} (killed){{end}}</td><td>{{.Restarts}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{end}}{{end}}
{{with .Res.Spec.Seed}}<h2>Seed</h2><p>{{.Source}}{{with .Note}} ({{.}}){{end}}</p>{{end}}
</body></html>
`))
