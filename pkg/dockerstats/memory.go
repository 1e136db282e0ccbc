package dockerstats

// Memory is one container's memory as `docker stats` shows it.
type Memory struct {
	Usage      uint64 // memory.usage_in_bytes (v1) / memory.current (v2)
	WorkingSet uint64 // Usage − inactive file cache: docker stats' MEM USAGE
	RSS        uint64 // total_rss (v1) / anon (v2)
	Limit      uint64 // 0 = unlimited
	OOMKills   uint64 // the cgroup's oom_kill count, 0 if the kernel does not say
}

// v1Unlimited: cgroup v1 reports "no limit" as PAGE_COUNTER_MAX pages,
// 9223372036854771712 on 4 KiB pages; anything this large is no limit.
const v1Unlimited = 1 << 62

// workingSet is docker's formula: usage minus inactive file pages, when
// those are smaller than usage.
func workingSet(usage, inactiveFile uint64) uint64 {
	if inactiveFile < usage {
		return usage - inactiveFile
	}
	return usage
}

// fromStatMap computes Memory from memory.stat keys and usage. v1 names
// carry a total_ prefix (hierarchical); v2 names do not.
func fromStatMap(stat map[string]uint64, usage, limit uint64) Memory {
	m := Memory{Usage: usage, Limit: limit}
	if limit >= v1Unlimited {
		m.Limit = 0
	}
	if v, ok := stat["total_inactive_file"]; ok {
		m.WorkingSet = workingSet(usage, v)
		m.RSS = stat["total_rss"]
		return m
	}
	m.WorkingSet = workingSet(usage, stat["inactive_file"])
	m.RSS = stat["anon"]
	return m
}
