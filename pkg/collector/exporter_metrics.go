package collector

import "github.com/prometheus/client_golang/prometheus"

// Names of the exporter's own metrics that are not in metrics.go's
// catalogue.
const (
	inspectErrorsName = "n8n_exporter_inspect_errors_total"
)

var inspectErrors = desc(inspectErrorsName, "Processes the platform listed but could not inspect, since start; each was left out of its scrape.", "source")

// describe sends every descriptor a Report emits.
func describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
	ch <- inspectErrors
	for _, d := range boundsDescs {
		ch <- d
	}
}

// emitLeftOut emits the count of processes left out, per platform.
func emitLeftOut(r *Report, ch chan<- prometheus.Metric) {
	for source, n := range r.LeftOutTotal {
		ch <- prometheus.MustNewConstMetric(inspectErrors, prometheus.CounterValue, float64(n), source)
	}
}
