// Package prom serves a sweep's live progress as Prometheus metrics: it
// is a loadgen.Observer, in the manner of vegeta's lib/prom. The names
// (pkg/metricname) use the loadctl_ namespace: they describe the load
// tool, not n8n, so they stay out of the n8n_ prefix the exporter owns.
package prom

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Metrics is loadctl's live /metrics.
type Metrics struct {
	reg        *prometheus.Registry
	step       prometheus.Gauge
	vus        prometheus.Gauge
	rate       prometheus.Gauge
	inflight   prometheus.Gauge
	requests   *prometheus.CounterVec
	byOutcome  map[loadgen.Outcome]prometheus.Counter
	latency    prometheus.Histogram
	stepStarts prometheus.Counter
}

var _ loadgen.Observer = (*Metrics)(nil)

// New registers loadctl's metrics on a fresh registry.
func New() *Metrics {
	m := &Metrics{
		reg:        prometheus.NewRegistry(),
		step:       prometheus.NewGauge(prometheus.GaugeOpts{Name: metricname.LoadctlStep, Help: "Current sweep step, 1-based; 0 before the first and after the last."}),
		vus:        prometheus.NewGauge(prometheus.GaugeOpts{Name: metricname.LoadctlStepVUs, Help: "Virtual users of the current closed-loop step."}),
		rate:       prometheus.NewGauge(prometheus.GaugeOpts{Name: metricname.LoadctlStepTargetRate, Help: "Target arrival rate of the current open-loop step."}),
		inflight:   prometheus.NewGauge(prometheus.GaugeOpts{Name: metricname.LoadctlInFlight, Help: "Requests sent and not yet answered."}),
		requests:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricname.LoadctlRequests, Help: "Requests by outcome: pass, status, timeout, connection, check, dropped."}, []string{"outcome"}),
		latency:    prometheus.NewHistogram(prometheus.HistogramOpts{Name: metricname.LoadctlRequestDuration, Help: "Latency of completed requests (open loop: from the intended start).", Buckets: prometheus.ExponentialBucketsRange(0.001, 300, 24)}),
		stepStarts: prometheus.NewCounter(prometheus.CounterOpts{Name: metricname.LoadctlStepsStarted, Help: "Sweep steps started; its increments mark step boundaries."}),
		byOutcome:  map[loadgen.Outcome]prometheus.Counter{},
	}
	m.reg.MustRegister(m.step, m.vus, m.rate, m.inflight, m.requests, m.latency, m.stepStarts)
	for _, o := range loadgen.Outcomes() {
		m.byOutcome[o] = m.requests.WithLabelValues(o.String())
	}
	return m
}

// Handler serves the registry.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Result counts a finished request and, unless it was a dropped start,
// its latency.
func (m *Metrics) Result(lat time.Duration, o loadgen.Outcome) {
	if c, ok := m.byOutcome[o]; ok {
		c.Inc()
	}
	if o != loadgen.OutcomeDropped {
		m.latency.Observe(lat.Seconds())
	}
}

// InFlight sets the requests in flight.
func (m *Metrics) InFlight(n int64) { m.inflight.Set(float64(n)) }

// StepStarted marks a step boundary and its load.
func (m *Metrics) StepStarted(index int, s loadgen.Step) {
	m.step.Set(float64(index + 1))
	m.vus.Set(float64(s.VUs))
	m.rate.Set(s.Rate)
	m.stepStarts.Inc()
}

// SweepDone clears the step gauges.
func (m *Metrics) SweepDone() {
	m.step.Set(0)
	m.vus.Set(0)
	m.rate.Set(0)
}
