package collector

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// ScrapeTimeoutHeader is where Prometheus states its scrape timeout.
const ScrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// MetricsHandler serves /metrics: each request takes a report from the
// shared gather, bounded by its own context and scrape timeout, and emits
// it through a registry of its own beside static (the process's own
// collectors), as blackbox_exporter's probe handler does. The requests a
// gather served share one set of metric families, gathered once: a burst
// costs one gather and one conversion, and an encoding per request.
func (c *Collector) MetricsHandler(static prometheus.Gatherer, opts promhttp.HandlerOpts) http.Handler {
	var families familyCache
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		timeout, err := ScrapeTimeout(req, c.cfg.ScrapeTimeoutOffset, c.cfg.ScrapeTimeout)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(req.Context(), timeout)
		defer cancel()
		r, err := c.Scrape(ctx)
		if err != nil {
			http.Error(w, fmt.Sprintf("no report within the scrape timeout (%s): %v", timeout, err), http.StatusServiceUnavailable)
			return
		}
		mfs, err := families.of(r, func() ([]*dto.MetricFamily, error) {
			reg := prometheus.NewRegistry()
			reg.MustRegister(ReportCollector{r})
			return prometheus.Gatherers{static, reg}.Gather()
		})
		promhttp.HandlerFor(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return mfs, err }), opts).ServeHTTP(w, req)
	})
}

// familyCache holds the metric families gathered for the latest report.
type familyCache struct {
	mu  sync.Mutex
	r   *Report
	mfs []*dto.MetricFamily
	err error
}

// of returns r's families, gathering them on the first ask for r.
func (fc *familyCache) of(r *Report, gather func() ([]*dto.MetricFamily, error)) ([]*dto.MetricFamily, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.r != r {
		fc.mfs, fc.err = gather()
		fc.r = r
	}
	return fc.mfs, fc.err
}

// ScrapeTimeout is blackbox_exporter's getTimeout: Prometheus' header minus
// offset (half the header when the offset would leave nothing), capped by
// limit; limit when the header is absent. A header that is not a positive
// number is an error naming it.
func ScrapeTimeout(req *http.Request, offset, limit time.Duration) (time.Duration, error) {
	v := req.Header.Get(ScrapeTimeoutHeader)
	if v == "" {
		return limit, nil
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || secs <= 0 || math.IsInf(secs, 0) || math.IsNaN(secs) {
		return 0, fmt.Errorf("%s: want a positive number of seconds", ScrapeTimeoutHeader)
	}
	header := time.Duration(min(secs, limit.Seconds()+offset.Seconds()) * float64(time.Second))
	t := header - offset
	if t <= 0 {
		t = header / 2
	}
	return min(t, limit), nil
}

// ReportCollector emits one Report as const metrics.
type ReportCollector struct{ Report *Report }

// Describe sends the fixed descriptors.
func (rc ReportCollector) Describe(ch chan<- *prometheus.Desc) { describe(ch) }

// Collect emits the report.
func (rc ReportCollector) Collect(ch chan<- prometheus.Metric) { Emit(rc.Report, ch) }
