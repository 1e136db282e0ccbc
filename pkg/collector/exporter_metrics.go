package collector

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

var inspectErrors = desc(metricname.InspectErrors, "Processes the platform listed but could not inspect, since start; each was left out of its scrape.", "source")

// describe sends every descriptor a Report emits.
func describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
	ch <- inspectErrors
	for _, d := range slices.Concat(boundsDescs, typeDescs) {
		ch <- d
	}
}

// emitLeftOut emits the count of processes left out, per platform.
func emitLeftOut(r *Report, ch chan<- prometheus.Metric) {
	for source, n := range r.LeftOutTotal {
		ch <- prometheus.MustNewConstMetric(inspectErrors, prometheus.CounterValue, float64(n), source)
	}
}
