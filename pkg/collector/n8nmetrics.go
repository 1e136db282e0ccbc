package collector

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ExecutionDurationMetric is n8n's own histogram of workflow execution time,
// served by main. Its mean undercounts the worker slot a little (it starts
// after Bull pickup), so Redis's Little's-law figure is preferred.
const ExecutionDurationMetric = "n8n_workflow_execution_duration_seconds"

const maxMetricsBody = 16 << 20

// n8nDurations reads the histogram and returns the mean of executions since
// the previous scrape, falling back to the last such mean, then to the
// mean since n8n started. A delta the caller calls dirty (executions that
// may have waited for a runner) is dropped and the last clean mean kept.
type n8nDurations struct {
	client    *http.Client
	noHistory bool // never use the all-time mean (its past is not known clean)

	mu                sync.Mutex
	prevSum, lastMean float64
	prevCount         uint64
	hasPrev, hasLast  bool
}

// read returns the mean to use (0 = none) and a note saying how it was
// made; dirty is why this interval may be contaminated, "" if clean.
func (d *n8nDurations) read(ctx context.Context, url, dirty string) (time.Duration, string, error) {
	sum, count, err := d.fetch(ctx, url)
	if err != nil {
		return 0, "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	mean, note := d.next(sum, count, dirty)
	d.prevSum, d.prevCount, d.hasPrev = sum, count, true
	return time.Duration(mean * float64(time.Second)), note, nil
}

func (d *n8nDurations) next(sum float64, count uint64, dirty string) (float64, string) {
	switch {
	case d.hasPrev && count > d.prevCount && dirty == "":
		d.lastMean, d.hasLast = (sum-d.prevSum)/float64(count-d.prevCount), true
		return d.lastMean, fmt.Sprintf("mean of %d executions since the last scrape", count-d.prevCount)
	case d.hasPrev && count > d.prevCount:
		return d.kept(fmt.Sprintf("%d executions since the last scrape left out (%s)", count-d.prevCount, dirty))
	case d.hasLast && count >= d.prevCount:
		return d.lastMean, "no new executions; last mean kept"
	case count == 0:
		return 0, ""
	case dirty != "":
		return 0, fmt.Sprintf("mean since n8n started left out (%s)", dirty)
	case d.noHistory:
		return 0, "mean since n8n started left out: runner saturation before the exporter started is unknown"
	}
	d.lastMean, d.hasLast = sum/float64(count), true
	return d.lastMean, fmt.Sprintf("mean of all %d executions since n8n started", count)
}

// kept falls back to the last clean mean, or to none.
func (d *n8nDurations) kept(why string) (float64, string) {
	if d.hasLast {
		return d.lastMean, why + "; last clean mean kept"
	}
	return 0, why + "; no clean mean yet"
}

func (d *n8nDurations) fetch(ctx context.Context, url string) (float64, uint64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("n8n metrics URL: %w", err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("n8n metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("n8n metrics: HTTP %d", resp.StatusCode)
	}
	return parseExecutionDurations(io.LimitReader(resp.Body, maxMetricsBody))
}

// parseExecutionDurations sums the histogram over all its label sets.
func parseExecutionDurations(r io.Reader) (float64, uint64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return 0, 0, fmt.Errorf("n8n metrics: %w", err)
	}
	fam, ok := fams[ExecutionDurationMetric]
	if !ok || fam.GetType() != dto.MetricType_HISTOGRAM {
		return 0, 0, fmt.Errorf("n8n metrics: no %s histogram (is N8N_METRICS=true on main?)", ExecutionDurationMetric)
	}
	var sum float64
	var count uint64
	for _, m := range fam.GetMetric() {
		sum += m.GetHistogram().GetSampleSum()
		count += m.GetHistogram().GetSampleCount()
	}
	return sum, count, nil
}
