package cgroup

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestCPUV1(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, "cpuacct", "docker", testID), map[string]string{"cpuacct.usage": "2500000000\n"})
	writeFiles(t, filepath.Join(root, "cpu", "docker", testID), map[string]string{"cpu.cfs_quota_us": "150000\n", "cpu.cfs_period_us": "100000\n"})
	c, err := NewReader(root).CPU(testID, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Seconds != 2.5 || c.Quota != 1.5 {
		t.Fatalf("got %+v, want 2.5 s and 1.5 cores", c)
	}
	// No limit (−1), and a systemd-driver layout under a custom parent.
	root = t.TempDir()
	writeFiles(t, filepath.Join(root, "cpuacct", "n8n.slice", "docker-"+testID+".scope"), map[string]string{"cpuacct.usage": "1\n"})
	writeFiles(t, filepath.Join(root, "cpu", "n8n.slice", "docker-"+testID+".scope"), map[string]string{"cpu.cfs_quota_us": "-1\n", "cpu.cfs_period_us": "100000\n"})
	c, err = NewReader(root).CPU(testID, "n8n")
	if err != nil || c.Quota != 0 || c.Seconds != 1e-9 {
		t.Fatalf("got %+v %v, want 1 ns and no quota", c, err)
	}
}

// A v1 host whose cpu hierarchy is not visible still gives the time.
func TestCPUV1WithoutQuotaHierarchy(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, "cpuacct", "docker", testID), map[string]string{"cpuacct.usage": "7000000000\n"})
	c, err := NewReader(root).CPU(testID, "")
	if err != nil || c.Seconds != 7 || c.Quota != 0 {
		t.Fatalf("got %+v %v", c, err)
	}
}

func TestCPUV2(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"cgroup.controllers": "cpu memory\n"})
	dir := filepath.Join(root, "system.slice", "docker-"+testID+".scope")
	writeFiles(t, dir, map[string]string{"cpu.stat": "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n", "cpu.max": "50000 100000\n"})
	c, err := NewReader(root).CPU(testID, "")
	if err != nil || c.Seconds != 1.5 || c.Quota != 0.5 {
		t.Fatalf("got %+v %v, want 1.5 s and 0.5 cores", c, err)
	}
	writeFiles(t, dir, map[string]string{"cpu.max": "max 100000\n"})
	if c, err = NewReader(root).CPU(testID, ""); err != nil || c.Quota != 0 {
		t.Fatalf("max: got %+v %v", c, err)
	}
}

func TestCPUBadInput(t *testing.T) {
	if _, err := NewReader(t.TempDir()).CPU(testID, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing cgroup: %v", err)
	}
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, "cpuacct", "docker", testID), map[string]string{"cpuacct.usage": "lots\n"})
	if _, err := NewReader(root).CPU(testID, ""); err == nil {
		t.Fatal("a non-numeric cpuacct.usage was accepted")
	}
	writeFiles(t, filepath.Join(root, "cpuacct", "docker", testID), map[string]string{"cpuacct.usage": "1\n"})
	writeFiles(t, filepath.Join(root, "cpu", "docker", testID), map[string]string{"cpu.cfs_quota_us": "100\n", "cpu.cfs_period_us": "0\n"})
	if _, err := NewReader(root).CPU(testID, ""); err == nil || !strings.Contains(err.Error(), "period") {
		t.Fatalf("a zero period: %v", err)
	}
	v2 := t.TempDir()
	writeFiles(t, v2, map[string]string{"cgroup.controllers": "cpu\n"})
	writeFiles(t, filepath.Join(v2, "docker", testID), map[string]string{"cpu.stat": "user_usec 3\n"})
	if _, err := NewReader(v2).CPU(testID, ""); err == nil || !strings.Contains(err.Error(), "usage_usec") {
		t.Fatalf("cpu.stat without usage_usec: %v", err)
	}
}

func TestParseCPUMax(t *testing.T) {
	for in, want := range map[string]float64{"max 100000": 0, "200000 100000\n": 2, "25000 100000": 0.25} {
		got, err := ParseCPUMax(in)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%q: got %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "max", "x 100000", "100 -1", "1 2 3"} {
		if _, err := ParseCPUMax(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
