// Package collector is the exporter's scrape-time collector: on every
// scrape it asks a platform for n8n's processes (Docker through
// pkg/dockerstats), its memory sources in order (cgroup files, then the
// stats API; none is fine), Redis, n8n's /metrics and the broker probes. It
// pairs the processes with pkg/topology, runs pkg/capacity on what it
// found, and emits const metrics. Each source reports its own
// n8n_exporter_source_up and _duration_seconds; a failing source never
// fails the scrape. The landing page renders the same Report in words.
package collector
