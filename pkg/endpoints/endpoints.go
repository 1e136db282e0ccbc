// Package endpoints is how an apply hook says where things are: it prints
// `lab: <name> <url>` lines on its stdout, among any other output, and
// loadctl experiment reads them. The real-n8n lab's up.sh is one such
// hook (e2e/lab); a spec may name any command that prints these lines.
package endpoints

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
)

// Names loadctl experiment reads. A hook prints webhook and
// exporter-metrics unless the spec gives the URLs, and one line per broker
// probe whose name starts with ProbeMetricsPrefix (probe-metrics-1, …).
const (
	Webhook            = "webhook"
	ExporterMetrics    = "exporter-metrics"
	ProbeMetricsPrefix = "probe-metrics"
)

// Prefix starts every endpoint line a hook prints.
const Prefix = "lab: "

// Endpoints maps the names a hook printed (webhook, main-metrics,
// worker-metrics-1, broker-1, redis, docker-host, …) to their URLs.
type Endpoints map[string]string

// Parse reads `lab: <name> <url>` lines and ignores all others, so it can
// read a hook's whole output.
func Parse(r io.Reader) (Endpoints, error) { return ParsePrefixed(r, Prefix) }

// ParsePrefixed reads `<prefix><name> <url>` lines with the same rules
// (the Kubernetes lab prints "kube: ").
func ParsePrefixed(r io.Reader, prefix string) (Endpoints, error) {
	eps := Endpoints{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 {
			return nil, fmt.Errorf("endpoint line %q: want `%s<name> <url>`", sc.Text(), prefix)
		}
		if _, err := url.Parse(f[1]); err != nil {
			return nil, fmt.Errorf("endpoint line %q: %w", sc.Text(), err)
		}
		eps[f[0]] = f[1]
	}
	return eps, sc.Err()
}

// Must returns the named endpoint or an error that lists the known ones.
func (e Endpoints) Must(name string) (string, error) {
	if u, ok := e[name]; ok {
		return u, nil
	}
	names := make([]string, 0, len(e))
	for n := range e {
		names = append(names, n)
	}
	sort.Strings(names)
	return "", fmt.Errorf("no %q endpoint among the `lab:` lines (have %s)", name, strings.Join(names, ", "))
}

// Probes lists the probe metric URLs, by name.
func (e Endpoints) Probes() []string {
	var names []string
	for n := range e {
		if strings.HasPrefix(n, ProbeMetricsPrefix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = e[n]
	}
	return out
}
