package topology

// Memory is one process's memory as `docker stats` shows it, read from
// cgroup files, Docker's stats API or cAdvisor.
type Memory struct {
	Usage      uint64 // memory.usage_in_bytes (v1) / memory.current (v2)
	WorkingSet uint64 // Usage − inactive file cache: docker stats' MEM USAGE
	RSS        uint64 // total_rss (v1) / anon (v2)
	Limit      uint64 // 0 = unlimited
	OOMKills   uint64 // OOM kills counted for the process, 0 if unknown
}

// CPU is one process's CPU as its cgroup counts it.
type CPU struct {
	Seconds float64 // CPU time used since the cgroup was made, a counter
	Quota   float64 // cores the cgroup may use (quota / period); 0 = no limit
}
