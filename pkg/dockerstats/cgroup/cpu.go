package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// CPU reads container id's CPU time and quota; parent is its
// --cgroup-parent. On v1 the time is cpuacct.usage (nanoseconds) and the
// quota cpu.cfs_quota_us / cpu.cfs_period_us (−1 = none), two hierarchies
// that may be mounted apart; on v2 they are cpu.stat's usage_usec and
// cpu.max ("max 100000" = none).
func (r Reader) CPU(id, parent string) (topology.CPU, error) {
	if r.v2 {
		return r.cpuV2(id, parent)
	}
	dir, err := r.find("cpuacct", "cpuacct.usage", id, parent)
	if err != nil {
		return topology.CPU{}, err
	}
	ns, err := readUint(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return topology.CPU{}, err
	}
	c := topology.CPU{Seconds: float64(ns) / 1e9}
	if qdir, err := r.find("cpu", "cpu.cfs_quota_us", id, parent); err == nil {
		c.Quota, err = quotaV1(qdir)
		if err != nil {
			return topology.CPU{}, err
		}
	}
	return c, nil
}

func (r Reader) cpuV2(id, parent string) (topology.CPU, error) {
	dir, err := r.find("", "cpu.stat", id, parent)
	if err != nil {
		return topology.CPU{}, err
	}
	stat, err := readKeyValues(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return topology.CPU{}, err
	}
	usec, ok := stat["usage_usec"]
	if !ok {
		return topology.CPU{}, fmt.Errorf("%s: no usage_usec", filepath.Join(dir, "cpu.stat"))
	}
	c := topology.CPU{Seconds: float64(usec) / 1e6}
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.max")); err == nil {
		if c.Quota, err = ParseCPUMax(string(b)); err != nil {
			return topology.CPU{}, fmt.Errorf("%s: %w", filepath.Join(dir, "cpu.max"), err)
		}
	}
	return c, nil
}

// quotaV1 reads cpu.cfs_quota_us over cpu.cfs_period_us.
func quotaV1(dir string) (float64, error) {
	q, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	if err != nil {
		return 0, err
	}
	p, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err != nil {
		return 0, err
	}
	return quota(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

// ParseCPUMax reads v2's cpu.max: "<quota|max> <period>".
func ParseCPUMax(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, fmt.Errorf("cpu.max: want \"<quota|max> <period>\", got %d fields", len(f))
	}
	if f[0] == "max" {
		return 0, nil
	}
	return quota(f[0], f[1])
}

// quota is quota/period in cores; a negative quota (v1's −1) is no limit.
func quota(q, p string) (float64, error) {
	qn, err := strconv.ParseInt(q, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cpu quota: %w", err)
	}
	pn, err := strconv.ParseInt(p, 10, 64)
	if err != nil || pn <= 0 {
		return 0, fmt.Errorf("cpu period %q: not a positive integer", p)
	}
	if qn < 0 {
		return 0, nil
	}
	return float64(qn) / float64(pn), nil
}
