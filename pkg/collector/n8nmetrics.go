package collector

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
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
// the previous read, falling back to the last such mean, then to the
// mean since n8n started. A delta that may hold executions that waited for
// a runner is dropped and the last clean mean kept.
type n8nDurations struct {
	client    *http.Client
	noHistory bool // never use the all-time mean (its past is not known clean)

	mu               sync.Mutex
	prev             histo
	prevAt           time.Time
	lastMean         float64
	hasPrev, hasLast bool
	runs             histRuns // for the runner time, clean or not
}

// histo is the execution histogram summed over its label sets; buckets are
// cumulative counts by upper bound, as Prometheus exposes them.
type histo struct {
	sum     float64
	count   uint64
	buckets map[float64]uint64
}

// longestSince bounds the duration of every execution counted in h but not
// in prev: the smallest bucket bound that holds all of them (+Inf if none).
func (h histo) longestSince(prev histo) float64 {
	bounds := make([]float64, 0, len(h.buckets))
	for le := range h.buckets {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	for _, le := range bounds {
		if h.buckets[le]-prev.buckets[le] == h.count-prev.count {
			return le
		}
	}
	return math.Inf(1)
}

// read returns the mean to use (0 = none) and a note saying how it was
// made. dirty is why this interval may be contaminated ("" if nothing
// says so); lastSaturated is when a runner was last seen saturated. A delta
// is clean only if no runner was saturated since the earliest moment one of
// its executions can have started: the previous read minus the longest
// of them.
func (d *n8nDurations) read(ctx context.Context, url, dirty string, lastSaturated, now time.Time) (time.Duration, string, error) {
	h, err := d.fetch(ctx, url)
	if err != nil {
		return 0, "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dirty == "" && d.hasPrev && h.count > d.prev.count && !lastSaturated.IsZero() {
		longest := h.longestSince(d.prev)
		if math.IsInf(longest, 1) || lastSaturated.After(d.prevAt.Add(-time.Duration(longest*float64(time.Second)))) {
			dirty = "a runner was saturated while they ran"
		}
	}
	mean, note := d.next(h.sum, h.count, dirty)
	d.runs.record(histPoint{at: now, sum: h.sum, count: h.count})
	d.prev, d.prevAt, d.hasPrev = h, now, true
	return time.Duration(mean * float64(time.Second)), note, nil
}

func (d *n8nDurations) next(sum float64, count uint64, dirty string) (float64, string) {
	switch {
	case d.hasPrev && count > d.prev.count && dirty == "":
		d.lastMean, d.hasLast = (sum-d.prev.sum)/float64(count-d.prev.count), true
		return d.lastMean, fmt.Sprintf("mean of %d executions since the last sample", count-d.prev.count)
	case d.hasPrev && count > d.prev.count:
		return d.kept(fmt.Sprintf("%d executions since the last sample left out (%s)", count-d.prev.count, dirty))
	case d.hasLast && count >= d.prev.count:
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

func (d *n8nDurations) fetch(ctx context.Context, url string) (histo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return histo{}, fmt.Errorf("n8n metrics URL: %w", err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return histo{}, fmt.Errorf("n8n metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return histo{}, fmt.Errorf("n8n metrics: HTTP %d", resp.StatusCode)
	}
	return parseExecutionDurations(io.LimitReader(resp.Body, maxMetricsBody))
}

// parseExecutionDurations sums the histogram over all its label sets.
func parseExecutionDurations(r io.Reader) (histo, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return histo{}, fmt.Errorf("n8n metrics: %w", err)
	}
	fam, ok := fams[ExecutionDurationMetric]
	if !ok || fam.GetType() != dto.MetricType_HISTOGRAM {
		return histo{}, fmt.Errorf("n8n metrics: no %s histogram (is N8N_METRICS=true on main?)", ExecutionDurationMetric)
	}
	h := histo{buckets: map[float64]uint64{}}
	for _, m := range fam.GetMetric() {
		hm := m.GetHistogram()
		h.sum += hm.GetSampleSum()
		h.count += hm.GetSampleCount()
		for _, b := range hm.GetBucket() {
			h.buckets[b.GetUpperBound()] += b.GetCumulativeCount()
		}
	}
	return h, nil
}
