package report

import (
	"fmt"
	"strconv"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// column is one field of a step row, shared by the table, CSV and HTML so
// the three never disagree on order or meaning.
type column struct {
	name  string // CSV header
	title string // table header
	text  func(r row) string
	raw   func(r row) string // CSV value; nil means text
	// csvOnly columns carry numbers the table already shows as a label.
	csvOnly bool
}

type row struct {
	s    loadgen.StepResult
	cmp  *comparison.Comparison // nil: the step has none
	knee bool
}

func pct(v float64) string    { return fmt.Sprintf("%.1f%%", 100*v) }
func num(v float64) string    { return strconv.FormatFloat(v, 'f', -1, 64) }
func fixed2(v float64) string { return fmt.Sprintf("%.2f", v) }
func count(v int64) string    { return strconv.FormatInt(v, 10) }
func secs(v float64) string   { return FormatSeconds(v) }
func errKind(k string) func(row) string {
	return func(r row) string { return count(r.s.Figures.Errors[k]) }
}

var stepColumns = []column{
	{"step", "step", func(r row) string { return strconv.Itoa(r.s.Index + 1) }, nil, false},
	{"load", "load", func(r row) string { return r.s.Load.Label() }, nil, false},
	{"vus", "", func(r row) string { return strconv.Itoa(r.s.Load.VUs) }, nil, true},
	{"rate_per_second", "", func(r row) string { return num(r.s.Load.Rate) }, nil, true},
	{"pass_rate", "pass", func(r row) string { return pct(r.s.Figures.PassRate) }, func(r row) string { return num(r.s.Figures.PassRate) }, false},
	{"error_rate", "errors", func(r row) string { return pct(r.s.Figures.ErrorRate) }, func(r row) string { return num(r.s.Figures.ErrorRate) }, false},
	{"errors_status", "status", errKind("status"), nil, false},
	{"errors_timeout", "timeout", errKind("timeout"), nil, false},
	{"errors_connection", "conn", errKind("connection"), nil, false},
	{"errors_check", "check", errKind("check"), nil, false},
	{"errors_dropped", "dropped", errKind("dropped"), nil, false},
	{"throughput_per_second", "req/s", func(r row) string { return fixed2(r.s.Figures.Throughput) }, func(r row) string { return num(r.s.Figures.Throughput) }, false},
	{"p50_seconds", "p50", func(r row) string { return secs(r.s.Figures.Latency.P50) }, func(r row) string { return num(r.s.Figures.Latency.P50) }, false},
	{"p90_seconds", "p90", func(r row) string { return secs(r.s.Figures.Latency.P90) }, func(r row) string { return num(r.s.Figures.Latency.P90) }, false},
	{"p95_seconds", "p95", func(r row) string { return secs(r.s.Figures.Latency.P95) }, func(r row) string { return num(r.s.Figures.Latency.P95) }, false},
	{"p99_seconds", "p99", func(r row) string { return secs(r.s.Figures.Latency.P99) }, func(r row) string { return num(r.s.Figures.Latency.P99) }, false},
	{"mean_in_flight", "in flight", func(r row) string { return fmt.Sprintf("%.1f", r.s.Figures.MeanInFlight) }, func(r row) string { return num(r.s.Figures.MeanInFlight) }, false},
	{"requests", "requests", func(r row) string { return count(r.s.Figures.Requests) }, nil, false},
	{"knee", "knee", func(r row) string { return kneeMark(r.knee) }, func(r row) string { return strconv.FormatBool(r.knee) }, false},
}

// exporterColumns appear when the sweep had an exporter.
var exporterColumns = []column{
	{"ceiling_per_second", "ceiling", cmp(func(c *comparison.Comparison) string { return fixed2(c.Ceiling) }), cmp(func(c *comparison.Comparison) string { return num(c.Ceiling) }), false},
	{"measured_over_ceiling", "÷ceiling", cmp(func(c *comparison.Comparison) string { return pct(c.Ratio) }), cmp(func(c *comparison.Comparison) string { return num(c.Ratio) }), false},
	{"bottleneck", "bottleneck", cmp(func(c *comparison.Comparison) string { return c.Bottleneck }), nil, false},
	{"predicted_throughput_per_second", "pred req/s", pred(func(p *comparison.Prediction) string { return fixed2(p.Throughput) }), pred(func(p *comparison.Prediction) string { return num(p.Throughput) }), false},
	{"predicted_mean_latency_seconds", "pred mean", pred(func(p *comparison.Prediction) string { return secs(p.MeanLatencySeconds) }), pred(func(p *comparison.Prediction) string { return num(p.MeanLatencySeconds) }), false},
	{"predicted_queue_wait", "pred queue", pred(func(p *comparison.Prediction) string { return strconv.Itoa(p.QueueWait) }), nil, false},
	{"exporter_error", "exporter", cmpErr, nil, false},
	// Appended after the first columns so CSV positions stay as they were.
	{"binding", "binding", cmp(func(c *comparison.Comparison) string { return c.Binding }), nil, false},
	{"prediction_model", "model", pred(func(p *comparison.Prediction) string { return p.Model }), nil, false},
	{"predicted_over_measured", "pred÷meas", predOverMeasured(pct), predOverMeasured(num), false},
	{"one_request_latency_seconds", "1-req latency", pred(func(p *comparison.Prediction) string { return secsOrEmpty(p.LatencySeconds, secs) }),
		pred(func(p *comparison.Prediction) string { return secsOrEmpty(p.LatencySeconds, num) }), false},
}

// predOverMeasured is the predicted throughput ÷ the step's passing
// throughput, empty when nothing passed.
func predOverMeasured(format func(float64) string) func(row) string {
	return func(r row) string {
		c, tput := r.cmp, r.s.Figures.Throughput
		if c == nil || c.Error != "" || c.Prediction == nil || tput <= 0 {
			return ""
		}
		return format(c.Prediction.Throughput / tput)
	}
}

// secsOrEmpty leaves a figure the prediction lacks (0) empty.
func secsOrEmpty(v float64, format func(float64) string) string {
	if v <= 0 {
		return ""
	}
	return format(v)
}

func kneeMark(k bool) string {
	if k {
		return "◀ knee"
	}
	return ""
}

func cmp(f func(*comparison.Comparison) string) func(row) string {
	return func(r row) string {
		if c := r.cmp; c != nil && c.Error == "" {
			return f(c)
		}
		return ""
	}
}

func pred(f func(*comparison.Prediction) string) func(row) string {
	return cmp(func(c *comparison.Comparison) string {
		if c.Prediction == nil {
			return ""
		}
		return f(c.Prediction)
	})
}

func cmpErr(r row) string {
	if c := r.cmp; c != nil {
		return c.Error
	}
	return ""
}

// columnsFor picks the columns a result needs.
func columnsFor(res *loadgen.Result, csv bool) []column {
	all := stepColumns
	if res.Settings.Exporter != "" {
		all = append(append([]column{}, stepColumns...), exporterColumns...)
	}
	var out []column
	for _, c := range all {
		if csv || !c.csvOnly {
			out = append(out, c)
		}
	}
	return out
}

func rows(res *loadgen.Result) []row {
	out := make([]row, len(res.Steps))
	for i, s := range res.Steps {
		out[i] = row{s: s, cmp: comparison.Of(s), knee: res.Knee != nil && res.Knee.Index == i}
	}
	return out
}

// header and cells render a table's head and one row as display text.
func header(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.title
	}
	return out
}

func cells(cols []column, r row) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.text(r)
	}
	return out
}
