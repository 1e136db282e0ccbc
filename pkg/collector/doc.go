// Package collector is the exporter's scrape-time collector: on every
// scrape it asks each source (Docker, cgroup files or the stats API, Redis,
// n8n's /metrics, the broker probes), runs pkg/capacity on what it found,
// and emits const metrics. Each source reports its own
// n8n_exporter_source_up and _duration_seconds; a failing source never
// fails the scrape. The landing page renders the same Report in words.
package collector
