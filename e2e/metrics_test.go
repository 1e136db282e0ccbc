package e2e

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is one series of a scrape: its name, labels and value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

type scrape []sample

func fetch(url string) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	res, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: HTTP %d", url, res.StatusCode)
	}
	return string(body), err
}

func get(t *testing.T, url string) string {
	t.Helper()
	body, err := fetch(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return body
}

func scrapeURL(t *testing.T, url string) scrape {
	t.Helper()
	s, err := fetchScrape(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fetchScrape parses a /metrics page. Histograms come out as _sum and
// _count series, as Prometheus stores them.
func fetchScrape(url string) (scrape, error) {
	body, err := fetch(url)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	var out scrape
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			out = append(out, samplesOf(name, m)...)
		}
	}
	return out, nil
}

func samplesOf(name string, m *dto.Metric) []sample {
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	switch {
	case m.GetGauge() != nil:
		return []sample{{name, labels, m.GetGauge().GetValue()}}
	case m.GetCounter() != nil:
		return []sample{{name, labels, m.GetCounter().GetValue()}}
	case m.GetUntyped() != nil:
		return []sample{{name, labels, m.GetUntyped().GetValue()}}
	case m.GetHistogram() != nil:
		h := m.GetHistogram()
		return []sample{{name + "_sum", labels, h.GetSampleSum()}, {name + "_count", labels, float64(h.GetSampleCount())}}
	case m.GetSummary() != nil:
		q := m.GetSummary()
		return []sample{{name + "_sum", labels, q.GetSampleSum()}, {name + "_count", labels, float64(q.GetSampleCount())}}
	}
	return nil
}

// scrapeQuiet reads n8n_runner_tasks_running by probe; it never fails the
// test, so a sampling goroutine may call it.
func scrapeQuiet(url string) map[string]float64 {
	out := map[string]float64{}
	s, err := fetchScrape(url)
	if err != nil {
		return out
	}
	for _, x := range s.find("n8n_runner_tasks_running") {
		out[x.labels["probe"]] = x.value
	}
	return out
}

// find returns the series of name whose labels include all of kv (pairs).
func (s scrape) find(name string, kv ...string) []sample {
	var out []sample
	for _, x := range s {
		if x.name != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			if x.labels[kv[i]] != kv[i+1] {
				ok = false
			}
		}
		if ok {
			out = append(out, x)
		}
	}
	return out
}

// one returns the single series of name with labels kv, failing otherwise.
func (s scrape) one(t *testing.T, name string, kv ...string) float64 {
	t.Helper()
	got := s.find(name, kv...)
	if len(got) != 1 {
		t.Fatalf("%s%v: %d series, want 1 (have %s)", name, kv, len(got), s.describe(name))
		return 0
	}
	return got[0].value
}

func (s scrape) describe(name string) string {
	var parts []string
	for _, x := range s.find(name) {
		parts = append(parts, fmt.Sprintf("%v=%g", x.labels, x.value))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// names is the set of metric family names as Prometheus stores them.
func (s scrape) names() map[string]bool {
	out := map[string]bool{}
	for _, x := range s {
		out[x.name] = true
	}
	return out
}
