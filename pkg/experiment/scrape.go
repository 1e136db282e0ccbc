package experiment

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// maxScrapeBytes bounds one exporter answer.
const maxScrapeBytes = 8 << 20

// Scrape is one parsed /metrics answer.
type Scrape map[string]*dto.MetricFamily

// Fetch reads and parses one scrape.
func Fetch(ctx context.Context, client *http.Client, url string) (Scrape, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: HTTP %d", url, resp.StatusCode)
	}
	return ParseScrape(io.LimitReader(resp.Body, maxScrapeBytes))
}

// ParseScrape parses the Prometheus text format.
func ParseScrape(r io.Reader) (Scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return Scrape(fams), nil
}

// Series is one sample with its labels.
type Series struct {
	Labels map[string]string
	Value  float64
}

// Series lists every sample of a family; histograms give their sum and
// count through HistSum.
func (s Scrape) Series(name string) []Series {
	var out []Series
	for _, m := range s[name].GetMetric() {
		l := map[string]string{}
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		out = append(out, Series{Labels: l, Value: loadgen.MetricValue(m)})
	}
	return out
}

// Has reports whether the family is present.
func (s Scrape) Has(name string) bool { return len(s[name].GetMetric()) > 0 }

// Sum adds every sample of a family.
func (s Scrape) Sum(name string) float64 {
	t := 0.0
	for _, x := range s.Series(name) {
		t += x.Value
	}
	return t
}

// Ints is the family's values as sorted integers.
func (s Scrape) Ints(name string) []int {
	out := []int{}
	for _, x := range s.Series(name) {
		out = append(out, int(x.Value))
	}
	slices.Sort(out)
	return out
}

// HistSum adds the sample sums and counts of a histogram family.
func (s Scrape) HistSum(name string) (sum, count float64) {
	for _, m := range s[name].GetMetric() {
		h := m.GetHistogram()
		sum += h.GetSampleSum()
		count += float64(h.GetSampleCount())
	}
	return sum, count
}
