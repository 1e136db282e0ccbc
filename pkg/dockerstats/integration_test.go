package dockerstats

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// The lab's shapes on a real dockerd: roles, settings, pairing through
// broker ports and a probe, and a worker left without a runner.
func TestIntegrationDiscoverAndPair(t *testing.T) {
	h := newLabHarness(t, "exec /bin/sleep 300")
	h.Start("main", dockertest.MainArgv, dockertest.WithSecrets(dockertest.Queue("N8N_PORT=5678", "N8N_RUNNERS_BROKER_PORT=5679")...), 0)
	h.Start("worker-1", dockertest.WorkerArgv("--concurrency=7"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5689", "QUEUE_HEALTH_CHECK_PORT=5688")...), 0)
	h.Start("worker-2", dockertest.WorkerArgv("--concurrency", "15"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5699", "N8N_CONCURRENCY_PRODUCTION_LIMIT=-1")...), 0)
	h.Start("worker-3", dockertest.WorkerArgv(), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5709", "N8N_CONCURRENCY_PRODUCTION_LIMIT=4")...), 0)
	// worker-4 is left on n8n's runner default: its own runner, limit 6.
	h.Start("worker-4", dockertest.WorkerArgv(), dockertest.WithSecrets("EXECUTIONS_MODE=queue", "N8N_RUNNERS_BROKER_PORT=5719", "N8N_RUNNERS_MAX_CONCURRENCY=6"), 0)
	runner := dockertest.RunnerArgv
	h.Start("runner-1-1", runner, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=3"), 0)
	h.Start("runner-1-2", runner, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=2"), 0)
	h.Start("runner-2-1", runner, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5711"), 0)
	h.Start("probe-1", dockertest.ProbeArgv, []string{"EXPORTER_DISCOVERY=false", "PROBE_LISTEN=127.0.0.1:5711", "PROBE_UPSTREAM=http://127.0.0.1:5699", "PROBE_NAME=runner-2"}, 0)
	h.Start("not-n8n", []string{"/bin/sleep", "300"}, dockertest.WithSecrets(), 0)

	cs := h.discover(9)
	if len(cs) != 9 {
		t.Fatalf("discovered %d n8n containers, want 9: %+v", len(cs), cs)
	}
	top := topology.Pair(cs)
	if len(top.Workers) != 4 || len(top.Mains) != 1 || len(top.Manual) != 1 || len(top.Probes) != 1 || len(top.Unpaired) != 0 {
		t.Fatalf("topology %+v", top)
	}
	want := map[string]struct{ conc, capacity int }{
		h.Name("worker-1"): {7, 5}, h.Name("worker-2"): {15, 10}, h.Name("worker-3"): {4, 0}, h.Name("worker-4"): {10, 6},
	}
	for _, w := range top.Workers {
		capacity := 0
		for _, r := range w.Runners {
			capacity += r.Runner.Settings.RunnerLimit.Value
		}
		if got := want[w.Worker.Name]; got.conc != w.Worker.Settings.Concurrency.Value || got.capacity != capacity {
			t.Errorf("%s: concurrency %+v capacity %d, want %+v", w.Worker.Name, w.Worker.Settings.Concurrency, capacity, got)
		}
	}
	if via := top.Workers[1].Runners[0].Route(); top.Workers[1].Runners[0].Probe != h.Name("probe-1") {
		t.Errorf("worker-2's runner via %q, want through the probe", via)
	}
}

// Working set from the cgroup files matches the API's one-shot stats, file
// cache is subtracted, and the limit and an OOM kill are seen.
func TestIntegrationMemory(t *testing.T) {
	// Writing /tmp/fill puts 16 MB in the page cache; tail buffers 96 MB of zeros and is
	// OOM-killed under a 48 MiB limit while the stand-in lives on.
	h := newLabHarness(t, `if [ "$1" = worker ]; then head -c 96000000 /dev/zero | tail >/dev/null; fi; head -c 16000000 /dev/zero >/tmp/fill; exec /bin/sleep 300`)
	h.Start("runner", dockertest.RunnerArgv, dockertest.WithSecrets(), 256<<20)
	h.Start("worker", dockertest.WorkerArgv(), dockertest.WithSecrets(), 48<<20)
	cs := h.discover(2)
	if len(cs) != 2 {
		t.Fatalf("discovered %d", len(cs))
	}
	r := CgroupMemory{cgroup.NewReader("/sys/fs/cgroup")}
	for _, c := range cs {
		waitSettled(t, r, c)
	}
	// The API's one-shot stats and the cgroup files are read moments apart,
	// and a container's memory still moves by pages then: read both again
	// until the working sets agree, a few times at most.
	var api, cgs []topology.Memory
	var errs, cgErrs []error
	for range 5 {
		api, errs = h.client.ReadMemory(context.Background(), cs)
		cgs, cgErrs = r.ReadMemory(context.Background(), cs)
		if workingSetsAgree(api, cgs) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	for i, c := range cs {
		cg, err := cgs[i], cgErrs[i]
		if err != nil || errs[i] != nil {
			t.Fatalf("%s: cgroup err %v, api err %v", c.Name, err, errs[i])
		}
		if !within(cg.WorkingSet, api[i].WorkingSet, 0.05, 256<<10) {
			t.Errorf("%s: cgroup working set %d vs API %d", c.Name, cg.WorkingSet, api[i].WorkingSet)
		}
		if cg.Limit != uint64(c.State.MemoryLimit) || api[i].Limit != cg.Limit {
			t.Errorf("%s: limit cgroup %d api %d inspect %d", c.Name, cg.Limit, api[i].Limit, c.State.MemoryLimit)
		}
		if cg.WorkingSet >= cg.Usage {
			t.Errorf("%s: page cache not subtracted: working set %d usage %d", c.Name, cg.WorkingSet, cg.Usage)
		}
		if oom := c.Role == topology.RoleWorker; oom != (cg.OOMKills > 0) {
			t.Errorf("%s: OOM kills %d", c.Name, cg.OOMKills)
		}
	}
}

func within(a, b uint64, frac float64, abs uint64) bool {
	d := max(a, b) - min(a, b)
	return d <= abs || float64(d) <= frac*float64(max(a, b))
}

// waitSettled waits (at most 30 s) until the stand-in's startup work is
// over: only the sleep is left (pids.current is 1, on cgroup v1) and usage
// stops moving between two reads half a second apart.
func waitSettled(t *testing.T, r CgroupMemory, c topology.Process) {
	t.Helper()
	prev := topology.Memory{}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		m, err := r.Memory(c.ID, c.CgroupParent)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(r.Root, "pids", "docker", c.ID, "pids.current"))
		pids, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if m.Usage == prev.Usage && m.Usage > 0 && pids <= 1 {
			return
		}
		prev = m
	}
	t.Logf("%s: usage still moving after 30 s", c.Name)
}

func workingSetsAgree(api, cgs []topology.Memory) bool {
	for i := range api {
		if !within(cgs[i].WorkingSet, api[i].WorkingSet, 0.05, 256<<10) {
			return false
		}
	}
	return true
}

// A launcher's config file in its container (here bind-mounted, as the
// lab and users mount their own) is read through the Engine API per type;
// a launcher whose file is missing gets a problem and the image's limits.
func TestIntegrationLauncherConfig(t *testing.T) {
	h := newLabHarness(t, "exec /bin/sleep 300")
	cfg := filepath.Join(t.TempDir(), "runners.json")
	data := `{"task-runners": [{"runner-type": "javascript", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "3"}},
	 {"runner-type": "python", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "2"}}]}`
	if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	launcher := []string{dockertest.N8n, "task-runner-launcher", "javascript", "python"}
	env := dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=8")
	h.StartBound("launcher-1", launcher, env, 0, cfg+":"+topology.DefaultRunnersConfigPath+":ro")
	h.StartBound("launcher-2", launcher, env, 0)
	limits := map[string][]int{}
	problems := map[string]int{}
	for _, p := range h.discover(2) {
		for _, pool := range p.Settings.TaskPools {
			limits[p.Name] = append(limits[p.Name], pool.Limit.Value)
		}
		problems[p.Name] = len(p.Problems)
	}
	if got := limits[h.Name("launcher-1")]; len(got) != 2 || got[0] != 3 || got[1] != 2 || problems[h.Name("launcher-1")] != 0 {
		t.Errorf("mounted config: limits %v, %d problems; want [3 2], none", got, problems[h.Name("launcher-1")])
	}
	if got := limits[h.Name("launcher-2")]; len(got) != 2 || got[0] != 8 || got[1] != 8 || problems[h.Name("launcher-2")] != 1 {
		t.Errorf("no config file: limits %v, %d problems; want the env's [8 8] and one problem", got, problems[h.Name("launcher-2")])
	}
}
