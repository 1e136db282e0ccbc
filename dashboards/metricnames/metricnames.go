// Package metricnames lists the metric names this project's binaries emit,
// read from their own collectors, so the dashboard and the alert rules can
// be checked against the code rather than against a copy of the names.
package metricnames

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/prometheus/client_golang/prometheus"
)

// FromN8n are n8n's own metrics the dashboard reads (main, with
// N8N_METRICS_INCLUDE_QUEUE_METRICS=true); we read them, never emit them.
var FromN8n = []string{"n8n_scaling_mode_queue_jobs_completed"}

// Known returns every name the exporter, the broker probe and loadctl
// emit, plus FromN8n.
func Known() (map[string]bool, error) {
	names := map[string]bool{}
	for _, n := range FromN8n {
		names[n] = true
	}
	probe, err := brokerprobe.New(brokerprobe.Config{Name: "names", Listen: "127.0.0.1:0", Upstream: "http://127.0.0.1:5689"}, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, fmt.Errorf("broker probe: %w", err)
	}
	for _, c := range []prometheus.Collector{collector.New(collector.Config{}), probe} {
		for _, n := range described(c) {
			names[n] = true
		}
	}
	for _, n := range exposed(loadgen.NewMetrics()) {
		names[n] = true
	}
	return names, nil
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// described reads the names from a collector's descriptors.
func described(c prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	var out []string
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// exposed reads the names from loadctl's live /metrics page.
func exposed(m *loadgen.Metrics) []string {
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var out []string
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
			out = append(out, f[2])
		}
	}
	return out
}

var ident = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)

// InQuery returns the project metric names a PromQL expression selects:
// identifiers starting n8n_ or loadctl_. Recorded names (with a colon) are
// not metrics of ours and are left out.
func InQuery(expr string) []string {
	var out []string
	for _, id := range ident.FindAllString(expr, -1) {
		if (strings.HasPrefix(id, "n8n_") || strings.HasPrefix(id, "loadctl_")) && !strings.Contains(id, ":") {
			out = append(out, id)
		}
	}
	return out
}

// Unknown returns the names in expr that no binary emits. Histogram series
// (_bucket, _sum, _count) count as their family.
func Unknown(expr string, known map[string]bool) []string {
	var bad []string
	for _, n := range InQuery(expr) {
		if known[n] {
			continue
		}
		base := n
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			base = strings.TrimSuffix(base, suf)
		}
		if !known[base] {
			bad = append(bad, n)
		}
	}
	return bad
}
