package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

const testID = "64e2c366c5dd655ee971ec1c681992b147179d10e62f9495071cfd1dae737b09"

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fixture(t *testing.T, name string) string {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A v1 memory.stat read from a runner-shaped container on this machine.
func TestCgroupV1RealSample(t *testing.T) {
	stat, err := ParseKeyValues(strings.NewReader(fixture(t, "memstat-v1-runner.txt")))
	if err != nil {
		t.Fatal(err)
	}
	m := FromStat(stat, 729088, 9223372036854771712)
	if m.RSS != stat["total_rss"] || m.RSS == 0 || m.Limit != 0 || m.WorkingSet != 729088-stat["total_inactive_file"] {
		t.Fatalf("got %+v from %v", m, stat)
	}
}

// Both v1 layouts (cgroupfs: docker/<id>, systemd: system.slice/docker-<id>.scope)
// and a custom --cgroup-parent.
func TestCgroupV1Layouts(t *testing.T) {
	files := map[string]string{
		"memory.usage_in_bytes": "4194304\n",
		"memory.limit_in_bytes": "2147483648\n",
		"memory.stat":           "cache 1048576\nrss 2097152\ntotal_rss 2097152\ntotal_inactive_file 1048576\ninactive_file 999\n",
		"memory.oom_control":    "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
	}
	want := topology.Memory{Usage: 4194304, WorkingSet: 3145728, RSS: 2097152, Limit: 2147483648, OOMKills: 2}
	for name, c := range map[string]struct {
		sub    string
		parent string
	}{
		"cgroupfs":      {"memory/docker/" + testID, ""},
		"systemd":       {"memory/system.slice/docker-" + testID + ".scope", ""},
		"cgroup-parent": {"memory/n8n/" + testID, "/n8n"},
		"systemd slice": {"memory/n8n.slice/docker-" + testID + ".scope", "n8n.slice"},
	} {
		root := t.TempDir()
		writeFiles(t, filepath.Join(root, c.sub), files)
		r := NewReader(root)
		if r.V2() {
			t.Fatalf("%s: detected v2", name)
		}
		got, err := r.Memory(testID, c.parent)
		if err != nil || got != want {
			t.Errorf("%s: got %+v err %v, want %+v", name, got, err, want)
		}
	}
}

func TestCgroupV2Layouts(t *testing.T) {
	files := map[string]string{
		"memory.current": "3400000000\n",
		"memory.max":     "max\n",
		"memory.stat":    fixture(t, "memstat-v2-sample.txt"),
		"memory.events":  "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n",
	}
	want := topology.Memory{Usage: 3400000000, WorkingSet: 3400000000 - 29360128, RSS: 3328180224, Limit: 0, OOMKills: 1}
	for name, sub := range map[string]string{
		"cgroupfs": "docker/" + testID,
		"systemd":  "system.slice/docker-" + testID + ".scope",
	} {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{"cgroup.controllers": "cpu memory pids\n"})
		writeFiles(t, filepath.Join(root, sub), files)
		r := NewReader(root)
		got, err := r.Memory(testID, "")
		if !r.V2() || err != nil || got != want {
			t.Errorf("%s: v2 %v got %+v err %v, want %+v", name, r.V2(), got, err, want)
		}
	}
}

func TestCgroupMissingAndMalformed(t *testing.T) {
	root := t.TempDir()
	if _, err := NewReader(root).Memory(testID, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: err %v", err)
	}
	dir := filepath.Join(root, "memory", "docker", testID)
	writeFiles(t, dir, map[string]string{
		"memory.usage_in_bytes": "12\n", "memory.limit_in_bytes": "lots\n", "memory.stat": "total_rss 1\n",
	})
	if _, err := NewReader(root).Memory(testID, ""); err == nil || !strings.Contains(err.Error(), "memory.limit_in_bytes") {
		t.Fatalf("malformed limit: err %v", err)
	}
	for _, bad := range []string{"total_rss\n", "total_rss -5\n", "total_rss 1e9\n"} {
		if _, err := ParseKeyValues(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseKeyValues(%q) accepted", bad)
		}
	}
}

// Usage below inactive file (possible between two reads) must not wrap.
func TestWorkingSetNoUnderflow(t *testing.T) {
	if got := workingSet(100, 200); got != 100 {
		t.Fatalf("got %d", got)
	}
}
