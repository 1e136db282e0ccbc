package report

import (
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// HTML writes one self-contained page: styles and SVG charts are inline and
// nothing is fetched, so the file can be mailed or archived as is.
func HTML(w io.Writer, res *loadgen.Result) error {
	cols := columnsFor(res, false)
	page := htmlPage{
		Res:      res,
		KneeLine: KneeLine(res),
		Charts: []template.HTML{
			template.HTML(throughputChart(res).SVG()), // #nosec: built from escaped parts
			template.HTML(latencyChart(res).SVG()),
			template.HTML(errorChart(res).SVG()),
		},
		ChartCSS: ChartCSS,
		Plan:     planLine(res),
		Examples: ErrorExampleLines(res),
	}
	page.Head = header(cols)
	for _, r := range rows(res) {
		page.Rows = append(page.Rows, htmlRow{Knee: r.knee, Cells: cells(cols, r)})
	}
	return pageTmpl.Execute(w, page)
}

type htmlPage struct {
	Res      *loadgen.Result
	KneeLine string
	Plan     string
	Examples []string
	Charts   []template.HTML
	ChartCSS template.CSS
	Head     []string
	Rows     []htmlRow
}

type htmlRow struct {
	Knee  bool
	Cells []string
}

func planLine(res *loadgen.Result) string {
	s := res.Settings
	loads := make([]string, len(s.Steps))
	for i, st := range s.Steps {
		loads[i] = st.Label()
	}
	d := func(sec float64) string { return time.Duration(sec * float64(time.Second)).String() }
	return string(s.Model) + " loop · steps " + strings.Join(loads, ", ") + " · " + d(s.StepSeconds) + " each after " + d(s.WarmupSeconds) + " warm-up"
}

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{"mul100": func(v float64) float64 { return 100 * v }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loadctl sweep report</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.sub{color:#555;margin:0 0 14px}.knee{font-size:17px;font-weight:600;background:#fff4e5;border-left:4px solid #e07b00;padding:8px 12px}
.warn{background:#fdecea;border-left:4px solid #c62828;padding:8px 12px 8px 28px;overflow-wrap:anywhere}
{{.ChartCSS}}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:12px;width:100%}th,td{padding:3px 4px;border-bottom:1px solid #e5e5e5;text-align:right;white-space:nowrap}
th{background:#f5f5f5}tr.knee td{background:#fff4e5;font-weight:600}
.ok{color:#2e7d32}.fail{color:#c62828;font-weight:600}code{font-size:13px}
</style></head><body>
<h1>loadctl sweep report</h1>
<p class="sub">{{.Plan}} · started {{.Res.Started.Format "2006-01-02 15:04:05 MST"}} · schema {{.Res.Schema}}</p>
<p class="knee">{{.KneeLine}}</p>
{{with .Examples}}<ul class="warn">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Res.Interrupted}}<p class="warn">The sweep was interrupted; the last step may be short.</p>{{end}}
<h2>Read in this order: pass rate → errors → throughput → latency</h2>
{{range .Charts}}{{.}}
{{end}}
<h2>Steps</h2>
<div class="scroll"><table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr{{if .Knee}} class="knee"{{end}}>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{with .Res.Thresholds}}<h2>Thresholds</h2><ul>{{range .}}<li><code>{{.Expr}}</code>: {{if .Passed}}<span class="ok">ok</span>{{else}}<span class="fail">FAILED</span>{{end}} (value {{.Value}})</li>{{end}}</ul>{{end}}
<h2>Totals over all measured windows</h2>
<p>{{.Res.Total.Requests}} requests, pass rate {{printf "%.2f%%" (mul100 .Res.Total.PassRate)}}, {{printf "%.2f" .Res.Total.Throughput}} passing req/s</p>
<h2>Settings</h2>
<p>Targets: {{range $i, $u := .Res.Settings.URLs}}{{if $i}}, {{end}}<code>{{$u}}</code>{{end}} · method {{.Res.Settings.Method}} · body {{.Res.Settings.BodyBytes}} bytes · timeout {{.Res.Settings.TimeoutSeconds}} s{{with .Res.Settings.Exporter}} · exporter <code>{{.}}</code>{{end}}</p>
</body></html>
`))
