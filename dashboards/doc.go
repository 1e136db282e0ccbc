// Package dashboards builds the n8n-ceiling Grafana dashboard with the
// grafana-foundation-sdk. `go run ./dashboards/gen` writes it to
// n8n-ceiling.json, and a test fails when the committed file drifts. The
// queries take their metric names from pkg/metricname.
package dashboards
