package cgroup

import (
	"path/filepath"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// memFiles names one hierarchy version's memory files.
type memFiles struct{ usage, limit, oom string }

var (
	v1Files = memFiles{usage: "memory.usage_in_bytes", limit: "memory.limit_in_bytes", oom: "memory.oom_control"}
	v2Files = memFiles{usage: "memory.current", limit: "memory.max", oom: "memory.events"}
)

// Memory reads container id's memory; parent is its --cgroup-parent.
func (r Reader) Memory(id, parent string) (topology.Memory, error) {
	dir, err := r.find("memory", "memory.stat", id, parent)
	if err != nil {
		return topology.Memory{}, err
	}
	if r.v2 {
		return readMemoryDir(dir, v2Files)
	}
	return readMemoryDir(dir, v1Files)
}

func readMemoryDir(dir string, f memFiles) (topology.Memory, error) {
	usage, err := readUint(filepath.Join(dir, f.usage))
	if err != nil {
		return topology.Memory{}, err
	}
	limit, err := readUint(filepath.Join(dir, f.limit))
	if err != nil {
		return topology.Memory{}, err
	}
	stat, err := readKeyValues(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return topology.Memory{}, err
	}
	m := FromStat(stat, usage, limit)
	// Both versions count OOM kills as "oom_kill N"; older kernels omit it.
	if kv, err := readKeyValues(filepath.Join(dir, f.oom)); err == nil {
		m.OOMKills = kv["oom_kill"]
	}
	return m, nil
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

// FromStat computes Memory from memory.stat keys (or the stats API's copy
// of them) and usage. v1 names carry a total_ prefix (hierarchical); v2
// names do not.
func FromStat(stat map[string]uint64, usage, limit uint64) topology.Memory {
	m := topology.Memory{Usage: usage, Limit: limit}
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
