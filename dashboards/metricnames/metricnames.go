// Package metricnames checks PromQL expressions (dashboard queries, alert
// and recording rules) against the metric names this project's binaries
// emit and the n8n names they read, all defined once in pkg/metricname.
package metricnames

import (
	"regexp"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Known returns every name the exporter, the broker probe and loadctl
// emit, plus n8n's own names that this project reads.
func Known() map[string]bool {
	names := map[string]bool{}
	for _, list := range [][]string{metricname.Exporter(), {metricname.BuildInfo}, metricname.Probe(), metricname.Loadctl(), metricname.FromN8n()} {
		for _, n := range list {
			names[n] = true
		}
	}
	return names
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
