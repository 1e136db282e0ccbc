// Package collector is the exporter's scrape-time collector: a gather asks
// a platform for n8n's processes (Docker through pkg/dockerstats), its
// memory sources in order (cgroup files, then the stats API; none is
// fine), Redis and the broker probes, pairs the processes with
// pkg/topology and runs pkg/capacity on what it found. Concurrent scrapes
// share one gather, bounded by their requests (gather.go), and /metrics
// emits its Report through a per-request registry; / and /verdict render
// the last Report. Collector.Run owns the background samplers: the Redis
// queue and the CPU counters (one tick reads both: the CPU sampler counts
// executions through the Redis sampler's reading), n8n's execution
// histogram and a discovery
// every 5 s that points them at what it finds, and the probe sidecars'
// /metrics every second; a scrape only reads them. Each source reports
// its own n8n_exporter_source_up and _duration_seconds; a failing source
// never fails the scrape.
package collector
