// Package metricnames checks PromQL expressions (dashboard queries, alert
// and recording rules) against the metric names this project's binaries
// emit and the n8n names they read, all defined once in pkg/metricname,
// plus the few foreign names the queries read from other exporters
// (Foreign).
package metricnames

import (
	"regexp"
	"slices"
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

// Foreign lists the metrics of other exporters that the dashboard reads,
// and why. On Kubernetes the exporter reads no memory: the kubelet's
// cAdvisor exports it per container, and every Kubernetes Prometheus
// scrapes it; the memory panels join it with n8n_container_info for the
// role (docs/kubernetes.md).
var Foreign = map[string]string{
	"container_memory_working_set_bytes": "cAdvisor (kubelet): working set per container, on Kubernetes",
	"container_memory_rss":               "cAdvisor (kubelet): anonymous memory per container, on Kubernetes",
}

var (
	// Strings, label matchers and ranges hold no metric names.
	literal  = regexp.MustCompile("\"(\\\\.|[^\"\\\\])*\"|'(\\\\.|[^'\\\\])*'|`[^`]*`")
	braces   = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	labelSet = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	number   = regexp.MustCompile(`(^|[^a-zA-Z0-9_:])[0-9][a-zA-Z0-9_.]*`)
	ident    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\s*\(?`)
)

// keywords are PromQL's operators and modifiers that read like names.
var keywords = []string{"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "inf", "nan"}

// InQuery returns the metric names a PromQL expression selects: every
// identifier that is not a function, an aggregation, a keyword, a label or
// inside a string. Recorded names (with a colon) are not metrics and are
// left out.
func InQuery(expr string) []string {
	for _, re := range []*regexp.Regexp{literal, braces, labelSet} {
		expr = re.ReplaceAllString(expr, " ")
	}
	expr = number.ReplaceAllString(expr, "$1 ")
	var out []string
	for _, m := range ident.FindAllString(expr, -1) {
		if strings.HasSuffix(m, "(") {
			continue // a function or aggregation
		}
		id := strings.TrimSpace(m)
		if !strings.Contains(id, ":") && !slices.Contains(keywords, id) {
			out = append(out, id)
		}
	}
	return out
}

// Unknown returns the names in expr that no binary emits and Foreign does
// not list. Histogram series (_bucket, _sum, _count) count as their family.
func Unknown(expr string, known map[string]bool) []string {
	var bad []string
	for _, n := range InQuery(expr) {
		if known[n] || Foreign[n] != "" {
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
