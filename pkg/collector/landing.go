package collector

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// LandingHandler serves "/": the verdict in words, the topology, service
// times, queue, memory, each process's settings with where they came
// from, and sources of the last report, with its age.
func (c *Collector) LandingHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/" {
			http.NotFound(w, req)
			return
		}
		r, ok := c.lastReport(w, req)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := RenderLanding(w, r); err != nil {
			c.cfg.Logger.Warn("landing page", "err", err)
		}
	})
}

// VerdictHandler serves the last report's verdict and service-time lines
// as plain text, one per line, for scripts and terminals; the last line
// gives the report's age.
func (c *Collector) VerdictHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r, ok := c.lastReport(w, req)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for _, line := range append(Verdict(r), serviceLines(r)...) {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w, reportAge(r, time.Now()))
	})
}

// lastReport is the last report a scrape was given. Before the first, it
// joins (or starts) one shared gather, bounded by the request and the
// scrape timeout; a page never gathers when a report exists.
func (c *Collector) lastReport(w http.ResponseWriter, req *http.Request) (*Report, bool) {
	if r := c.Last(); r != nil {
		return r, true
	}
	ctx, cancel := context.WithTimeout(req.Context(), c.cfg.ScrapeTimeout)
	defer cancel()
	r, err := c.Scrape(ctx)
	if err != nil {
		http.Error(w, "no report yet, and the first gather did not finish: "+err.Error(), http.StatusServiceUnavailable)
		return nil, false
	}
	return r, true
}

// reportAge says when r was gathered and how long ago.
func reportAge(r *Report, now time.Time) string {
	return fmt.Sprintf("report gathered at %s, %s ago", r.At.Format(time.RFC3339), now.Sub(r.At).Round(100*time.Millisecond))
}

type landingData struct {
	Verdict  []string
	Service  []string
	Queue    []string
	Rows     []memoryRow
	Settings []settingRow
	Sources  []SourceResult
	Problems []string
	Left     []string
	At       string
}

type memoryRow struct {
	Name, Role, WorkingSet, RSS, Limit, Via string
	OOM                                     bool
	Restarts                                int
}

// RenderLanding writes the landing page for r; html/template escapes
// container names.
func RenderLanding(w io.Writer, r *Report) error {
	return landingTmpl.Execute(w, landingData{
		Verdict: Verdict(r), Service: serviceLines(r), Queue: queueLines(r),
		Rows: memoryRows(r), Settings: settingRows(r), Sources: r.Sources, Problems: problems(r), Left: notCounted(r), At: reportAge(r, time.Now()),
	})
}

func serviceLines(r *Report) []string {
	var out []string
	for _, m := range r.Measured {
		used := ""
		if u, ok := r.Used[m.Stage]; ok && u.Source == m.Source {
			used = " (used)"
		}
		out = append(out, fmt.Sprintf("%s stage: %s from %s: %s%s", m.Stage, seconds(m.Time), m.Source, m.Note, used))
	}
	for _, st := range Stages {
		if u, ok := r.Used[st]; ok && u.Stage == st && u.Note != "" && !measured(r, u) {
			out = append(out, fmt.Sprintf("%s stage: %s (%s)", st, seconds(u.Time), u.Note))
		}
	}
	if r.CPU != nil && r.CPU.CountedFrom != "" {
		out = append(out, countNote(r.CPU.CountedFrom))
	}
	return append(out, r.Skipped...)
}

func measured(r *Report, u ServiceTime) bool {
	for _, m := range r.Measured {
		if m == u {
			return true
		}
	}
	return false
}

func queueLines(r *Report) []string {
	var out []string
	for _, s := range []string{"waiting", "active", "delayed", "paused", "completed", "failed"} {
		if n, ok := r.Queue[s]; ok {
			out = append(out, fmt.Sprintf("%s %d", s, n))
		}
	}
	return out
}

func memoryRows(r *Report) []memoryRow {
	via := pairings(r.Topology)
	var rows []memoryRow
	for _, c := range r.Processes {
		m, ok := r.Memory[c.ID]
		row := memoryRow{Name: c.Name, Role: string(c.Role), Via: via[c.ID], OOM: c.State.OOMKilled || m.OOMKills > 0, Restarts: c.State.RestartCount}
		if ok {
			row.WorkingSet, row.RSS, row.Limit = mib(m.WorkingSet), mib(m.RSS), limitText(m.Limit)
		} else {
			row.Limit = limitText(uint64(max(0, c.State.MemoryLimit)))
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
	return rows
}

// pairings says, by process ID, which main or worker each runner serves,
// and which process launches a runner of its own.
func pairings(t topology.Topology) map[string]string {
	via := map[string]string{}
	for _, nodes := range t.Hosts() {
		for _, w := range nodes {
			for _, a := range w.Runners {
				if a.Internal() {
					via[w.Worker.ID] = fmt.Sprintf("own internal runner, limit %d", a.Runner.Settings.RunnerLimit.Value)
					continue
				}
				via[a.Runner.ID] = "→ " + w.Worker.InstanceName() + " (" + a.Route() + ")"
			}
		}
	}
	return via
}

func problems(r *Report) []string {
	var out []string
	for _, c := range r.Processes {
		for _, p := range c.Problems {
			out = append(out, c.Name+": "+p)
		}
	}
	for _, e := range r.LeftOut {
		out = append(out, "left out of this report: "+e)
	}
	return out
}

// notCounted says which pods (or other platform objects) hold n8n
// processes that are left out now, and why.
func notCounted(r *Report) []string {
	var out []string
	for _, n := range r.NotCounted {
		line := n.Name + ": " + n.Phase
		if n.Reason != "" {
			line += ", " + n.Reason
		}
		out = append(out, line)
	}
	return out
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func limitText(b uint64) string {
	if b == 0 {
		return "unlimited"
	}
	return mib(b)
}

var landingTmpl = template.Must(template.New("landing").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>n8n-ceiling exporter</title>
<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}</style></head>
<body><h1>n8n-ceiling exporter</h1>
<p><a href="/metrics">/metrics</a> · <a href="/healthz">/healthz</a> · {{.At}}</p>
<h2>Verdict</h2><ul>{{range .Verdict}}<li>{{.}}</li>{{end}}</ul>
{{if .Service}}<h2>Service time</h2><ul>{{range .Service}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Queue}}<h2>Queue</h2><p>{{range .Queue}}{{.}} · {{end}}</p>{{end}}
{{if .Rows}}<h2>Containers</h2><table><tr><th>container</th><th>role</th><th>working set</th><th>RSS</th><th>limit</th><th>OOM</th><th>restarts</th><th>pairing</th></tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.Role}}</td><td>{{.WorkingSet}}</td><td>{{.RSS}}</td><td>{{.Limit}}</td><td>{{if .OOM}}yes{{end}}</td><td>{{.Restarts}}</td><td>{{.Via}}</td></tr>
{{end}}</table>{{end}}
{{if .Settings}}<h2>Settings</h2><table><tr><th>container</th><th>setting</th><th>value</th><th>from</th></tr>
{{range .Settings}}<tr><td>{{.Name}}</td><td>{{.Var}}</td><td>{{.Value}}</td><td>{{.From}}</td></tr>
{{end}}</table>{{end}}
{{if .Left}}<h2>Not counted</h2><ul>{{range .Left}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Problems}}<h2>Configuration problems</h2><ul>{{range .Problems}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Sources</h2><ul>{{range .Sources}}<li>{{.Name}}: {{if .Up}}up{{else}}down ({{.Err}}){{end}}, {{.Duration}}</li>{{end}}</ul>
</body></html>
`))
