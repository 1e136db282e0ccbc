package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Procs lists the processes in container id's cgroup (cgroup.procs beside
// cpuacct.usage on v1, beside cpu.stat on v2); parent is its
// --cgroup-parent. The kernel writes each PID as the reader's PID
// namespace numbers it: a process outside that namespace is 0 on v2 and
// left out on v1.
func (r Reader) Procs(id, parent string) ([]int, error) {
	dir, err := r.find("cpuacct", "cgroup.procs", id, parent)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "cgroup.procs")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pids, err := ParsePIDs(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pids, nil
}

// ParsePIDs reads cgroup.procs: one non-negative PID a line.
func ParsePIDs(s string) ([]int, error) {
	var pids []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid < 0 {
			return nil, fmt.Errorf("want one PID a line, got %q", truncate(f, 20))
		}
		pids = append(pids, pid)
	}
	return pids, nil
}
