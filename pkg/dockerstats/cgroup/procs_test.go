package cgroup

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// cgroup.procs beside cpuacct.usage on v1 and beside cpu.stat on v2, in
// both drivers' layouts; PID 0 (a process outside the reader's PID
// namespace on v2) is kept for the caller to judge.
func TestProcs(t *testing.T) {
	v1 := t.TempDir()
	writeFiles(t, filepath.Join(v1, "cpuacct", "docker", testID), map[string]string{"cpuacct.usage": "1\n", "cgroup.procs": "1\n7\n45\n"})
	if got, err := NewReader(v1).Procs(testID, ""); err != nil || !slices.Equal(got, []int{1, 7, 45}) {
		t.Fatalf("v1: got %v %v", got, err)
	}
	v2 := t.TempDir()
	writeFiles(t, v2, map[string]string{"cgroup.controllers": "cpu memory\n"})
	writeFiles(t, filepath.Join(v2, "n8n.slice", "docker-"+testID+".scope"), map[string]string{"cpu.stat": "usage_usec 1\n", "cgroup.procs": "0\n0\n"})
	if got, err := NewReader(v2).Procs(testID, "n8n"); err != nil || !slices.Equal(got, []int{0, 0}) {
		t.Fatalf("v2: got %v %v", got, err)
	}
}

func TestProcsBadInput(t *testing.T) {
	if _, err := NewReader(t.TempDir()).Procs(testID, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing cgroup: %v", err)
	}
	for _, bad := range []string{"12\nabc\n", "-3\n", "1.5\n"} {
		if _, err := ParsePIDs(bad); err == nil {
			t.Errorf("ParsePIDs(%q) accepted", bad)
		}
	}
	if got, err := ParsePIDs(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
}
