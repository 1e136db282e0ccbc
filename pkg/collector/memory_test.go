package collector

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// cgroupRoot is a cgroup v1 tree holding one container's memory files.
func cgroupRoot(t *testing.T, id string, usage int) dockerstats.CgroupMemory {
	root := t.TempDir()
	dir := filepath.Join(root, "memory", "docker", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"memory.usage_in_bytes": strconv.Itoa(usage), "memory.limit_in_bytes": "0",
		"memory.stat": "total_rss 1\ntotal_inactive_file 0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dockerstats.CgroupMemory{Reader: cgroup.NewReader(root)}
}

// Memory sources are asked in order, each for the running processes the
// ones before could not read; a source with nothing left is not asked.
func TestMemorySourcesInOrder(t *testing.T) {
	running := topology.State{Running: true}
	ps := []topology.Process{{ID: "a", Name: "a", State: running}, {ID: "b", Name: "b", State: running},
		{ID: "c", Name: "c", State: running}, {ID: "d", Name: "d"}}
	c := New(Config{Memory: []MemorySource{{Name: "first", Reader: cgroupRoot(t, "a", 1000)},
		{Name: "second", Reader: cgroupRoot(t, "b", 2000)}, {Name: "third", Reader: cgroupRoot(t, "b", 3000)}}})
	r := &Report{Processes: ps}
	c.readMemory(context.Background(), r)
	if len(r.Memory) != 2 || r.Memory["a"].Usage != 1000 || r.Memory["b"].Usage != 2000 {
		t.Errorf("memory %+v", r.Memory)
	}
	var sources []string
	for _, s := range r.Sources {
		sources = append(sources, s.Name+" "+strconv.FormatBool(s.Up)+" "+strings.Split(s.Err, ",")[0])
	}
	want := "first false 2 of 3 containers failed|second false 1 of 2 containers failed|third false 1 of 1 containers failed"
	if got := strings.Join(sources, "|"); got != want {
		t.Errorf("sources %s", got)
	}

	c = New(Config{Memory: []MemorySource{{Name: "first", Reader: cgroupRoot(t, "a", 1000)}, {Name: "second", Reader: cgroupRoot(t, "b", 2000)}}})
	r = &Report{Processes: ps[:1]}
	if c.readMemory(context.Background(), r); len(r.Sources) != 1 || !r.Sources[0].Up {
		t.Errorf("the second source was asked with nothing left: %+v", r.Sources)
	}
}

// Without a memory source (Kubernetes without cAdvisor) the collector
// still emits the platform's limit, OOM and restart state.
func TestNoMemorySource(t *testing.T) {
	p := topology.Process{ID: "x", Name: "n8n/worker-a/n8n", Role: topology.RoleWorker,
		State: topology.State{Running: true, MemoryLimit: 1 << 30, OOMKilled: true, RestartCount: 2}}
	r := &Report{Processes: []topology.Process{p}}
	New(Config{}).readMemory(context.Background(), r)
	want := `
# HELP n8n_container_memory_limit_bytes Memory limit; 0 = unlimited.
# TYPE n8n_container_memory_limit_bytes gauge
n8n_container_memory_limit_bytes{container="n8n/worker-a/n8n",role="worker"} 1.073741824e+09
# HELP n8n_container_oom_killed 1 if Docker reports the container OOM-killed or its cgroup counted an OOM kill.
# TYPE n8n_container_oom_killed gauge
n8n_container_oom_killed{container="n8n/worker-a/n8n",role="worker"} 1
# HELP n8n_container_restarts Docker's restart count for the container.
# TYPE n8n_container_restarts gauge
n8n_container_restarts{container="n8n/worker-a/n8n",role="worker"} 2
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_container_memory_limit_bytes",
		"n8n_container_oom_killed", "n8n_container_restarts", "n8n_container_memory_working_set_bytes"); err != nil || len(r.Sources) != 0 {
		t.Errorf("%v; sources %+v", err, r.Sources)
	}
}
