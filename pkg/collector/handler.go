package collector

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ScrapeTimeoutHeader is where Prometheus states its scrape timeout.
const ScrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// MetricsHandler serves /metrics: each request takes a report from the
// shared gather, bounded by its own context and scrape timeout, and emits
// it through a registry of its own beside static (the process's own
// collectors), as blackbox_exporter's probe handler does.
func (c *Collector) MetricsHandler(static prometheus.Gatherer, opts promhttp.HandlerOpts) http.Handler {
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
		reg := prometheus.NewRegistry()
		reg.MustRegister(ReportCollector{r})
		promhttp.HandlerFor(prometheus.Gatherers{static, reg}, opts).ServeHTTP(w, req)
	})
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
