package loadgen

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is loadctl's own live /metrics. The names use the loadctl_
// namespace: they describe the load tool, not n8n, so they stay out of the
// n8n_ prefix the exporter owns. A nil *Metrics records nothing.
type Metrics struct {
	reg        *prometheus.Registry
	step       prometheus.Gauge
	vus        prometheus.Gauge
	rate       prometheus.Gauge
	inflight   prometheus.Gauge
	requests   *prometheus.CounterVec
	byOutcome  [numOutcomes]prometheus.Counter
	latency    prometheus.Histogram
	stepStarts prometheus.Counter
}

// NewMetrics registers loadctl's metrics on a fresh registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg:        prometheus.NewRegistry(),
		step:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "loadctl_step", Help: "Current sweep step, 1-based; 0 before the first and after the last."}),
		vus:        prometheus.NewGauge(prometheus.GaugeOpts{Name: "loadctl_step_vus", Help: "Virtual users of the current closed-loop step."}),
		rate:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "loadctl_step_target_rate_per_second", Help: "Target arrival rate of the current open-loop step."}),
		inflight:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "loadctl_in_flight_requests", Help: "Requests sent and not yet answered."}),
		requests:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadctl_requests_total", Help: "Requests by outcome: pass, status, timeout, connection, check, dropped."}, []string{"outcome"}),
		latency:    prometheus.NewHistogram(prometheus.HistogramOpts{Name: "loadctl_request_duration_seconds", Help: "Latency of completed requests (open loop: from the intended start).", Buckets: prometheus.ExponentialBucketsRange(0.001, 300, 24)}),
		stepStarts: prometheus.NewCounter(prometheus.CounterOpts{Name: "loadctl_steps_started_total", Help: "Sweep steps started; its increments mark step boundaries."}),
	}
	m.reg.MustRegister(m.step, m.vus, m.rate, m.inflight, m.requests, m.latency, m.stepStarts)
	for o := range numOutcomes {
		m.byOutcome[o] = m.requests.WithLabelValues(o.String())
	}
	return m
}

// Handler serves the registry.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

func (m *Metrics) observe(lat time.Duration, o Outcome) {
	if m == nil {
		return
	}
	m.byOutcome[o].Inc()
	if o != OutcomeDropped {
		m.latency.Observe(lat.Seconds())
	}
}

func (m *Metrics) setInFlight(n int64) {
	if m != nil {
		m.inflight.Set(float64(n))
	}
}

func (m *Metrics) stepStarted(index int, s Step) {
	if m == nil {
		return
	}
	m.step.Set(float64(index + 1))
	m.vus.Set(float64(s.VUs))
	m.rate.Set(s.Rate)
	m.stepStarts.Inc()
}

func (m *Metrics) sweepDone() {
	if m == nil {
		return
	}
	m.step.Set(0)
	m.vus.Set(0)
	m.rate.Set(0)
}
