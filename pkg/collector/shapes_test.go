package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// shapeReport pairs fixtures into a report measured with one job time.
func shapeReport(t *testing.T, job ServiceTime, files ...string) *Report {
	var ps []topology.Process
	for _, f := range files {
		ps = append(ps, fixtureProcess(t, f))
	}
	r := &Report{Processes: ps, Topology: topology.Pair(ps), Measured: []ServiceTime{job}}
	c := New(Config{})
	c.evaluate(r)
	c.bound(r)
	return r
}

func hasLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	text := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("lacks %q:\n%s", w, text)
		}
	}
}

// n8n's defaults: a main in regular mode with its internal runner (limit
// 5 from its own env) and no production limit is a cluster of its own,
// bound by that runner at the job time n8n's histogram gives.
func TestRegularModeInternalRunner(t *testing.T) {
	r := shapeReport(t, ServiceTime{Stage: "job", Source: "n8n", Time: 2 * time.Second}, "inspect-regular-main.json")
	got := Verdict(r)
	if got[0] != "regular mode, internal runner" {
		t.Errorf("first line %q", got[0])
	}
	hasLines(t, got,
		"main fx-regular-main (regular mode): no slot limit (N8N_CONCURRENCY_PRODUCTION_LIMIT -1), runners 5 (internal) → effective 5, runner-bound; ceiling 2.5/s at 2.0 s per execution",
		"internal runner fx-regular-main/internal: the child process of its host, where no probe can stand between runner and broker, so the task time is the job time from n8n (2.0 s)",
		"cluster: 0 worker slots plus 1 main without a slot limit, runner capacity 5 → effective 5; ceiling 2.5 executions/s",
		"ceiling 2.5/s, set by the runner slots of main fx-regular-main (regular mode): 5 slots")
	want := `
# HELP n8n_worker_concurrency Worker concurrency (N8N_CONCURRENCY_PRODUCTION_LIMIT or --concurrency); for a regular-mode main, its N8N_CONCURRENCY_PRODUCTION_LIMIT, +Inf for none.
# TYPE n8n_worker_concurrency gauge
n8n_worker_concurrency{worker="fx-regular-main"} +Inf
# HELP n8n_runner_max_concurrency Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="fx-regular-main/internal",worker="fx-regular-main"} 5
# HELP n8n_worker_runner_capacity Sum of the limits of the runners attached to the worker; 0 = worker without runner.
# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="fx-regular-main"} 5
# HELP n8n_cluster_workers_without_runner Workers whose Code tasks no runner serves.
# TYPE n8n_cluster_workers_without_runner gauge
n8n_cluster_workers_without_runner 0
# HELP n8n_resource_servers Servers of the resource: slots, or cores (the host's online CPUs less its background; per n8n process EXPORTER_PROCESS_CORES less the steal share, with EXPORTER_PROCESS_CPU=thread times the share of its runnable time its thread ran and never below the cores it ran, or its cgroup quota if lower).
# TYPE n8n_resource_servers gauge
n8n_resource_servers{resource="slots:runner:fx-regular-main"} 5
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_worker_concurrency", "n8n_runner_max_concurrency",
		"n8n_worker_runner_capacity", "n8n_cluster_workers_without_runner", "n8n_resource_servers"); err != nil {
		t.Error(err)
	}
}

// Queue mode on n8n's runner default: the worker is served by its own
// runner and is no worker without runner; a worker in external mode that
// no runner reaches is one. Main keeps manual executions on its internal
// runner, outside the production ceiling; the webhook processor holds no
// slot.
func TestQueueModeInternalRunners(t *testing.T) {
	r := shapeReport(t, ServiceTime{Stage: "job", Source: "redis", Time: time.Second},
		"inspect-internal-worker.json", "inspect-lab-worker-1.json", "inspect-queue-main.json", "inspect-webhook.json")
	got := Verdict(r)
	if got[0] != "queue mode, 2 workers, internal runner, 1 webhook processor" {
		t.Errorf("first line %q", got[0])
	}
	hasLines(t, got,
		"worker fx-internal-worker: 15 slots, runners 10 (internal) → effective 10, runner-bound; ceiling 10.0/s",
		"worker fx-worker-1 has no runner: N8N_RUNNERS_MODE is external and no runner reaches its broker",
		"main fx-queue-main (queue mode): runs manual executions on its runners 10 (internal), which are not in the production ceiling; it holds no production execution slot, and its CPU (cpu:fx-queue-main) is a resource",
		"webhook processor fx-webhook: takes webhook requests and queues them; it holds no execution slot, and its CPU (cpu:fx-webhook) is a resource of every webhook execution")
	rows := map[string]string{}
	for _, row := range memoryRows(r) {
		rows[row.Name] = row.Via
	}
	if rows["fx-internal-worker"] != "own internal runner, limit 10" || rows["fx-queue-main"] != "own internal runner, limit 10" || rows["fx-worker-1"] != "" {
		t.Errorf("pairing column %v", rows)
	}
	for _, line := range got {
		if strings.Contains(line, "fx-queue-main's broker") || strings.Contains(line, "not counted") {
			t.Errorf("main's runner is called unpaired: %q", line)
		}
	}
	want := `
# HELP n8n_runner_max_concurrency Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="fx-internal-worker/internal",worker="fx-internal-worker"} 10
n8n_runner_max_concurrency{runner="fx-queue-main/internal",worker=""} 10
# HELP n8n_worker_runner_capacity Sum of the limits of the runners attached to the worker; 0 = worker without runner.
# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="fx-internal-worker"} 10
n8n_worker_runner_capacity{worker="fx-worker-1"} 0
# HELP n8n_cluster_workers_without_runner Workers whose Code tasks no runner serves.
# TYPE n8n_cluster_workers_without_runner gauge
n8n_cluster_workers_without_runner 1
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_runner_max_concurrency",
		"n8n_worker_runner_capacity", "n8n_cluster_workers_without_runner"); err != nil {
		t.Error(err)
	}
}

// The lab's main offloads manual executions to the workers: it serves
// none, which the page says.
func TestQueueModeOffloadedMain(t *testing.T) {
	r := shapeReport(t, ServiceTime{Stage: "job", Source: "redis", Time: time.Second}, "inspect-lab-main.json", "inspect-lab-worker-1.json", "inspect-lab-runner-1-1.json")
	got := Verdict(r)
	if got[0] != "queue mode, 1 worker, external runner" {
		t.Errorf("first line %q", got[0])
	}
	hasLines(t, got, "main fx-main (queue mode): OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS is true, so the workers run manual executions too and it runs none; it holds no production execution slot")
}

func TestShapeLine(t *testing.T) {
	node := func(name string, vias ...string) topology.WorkerNode {
		n := topology.WorkerNode{Worker: topology.Process{Name: name, Role: topology.RoleWorker}}
		for _, v := range vias {
			a := topology.Attachment{Via: v}
			if v == "probed" {
				a = topology.Attachment{Via: topology.ViaHostPort, Probe: "p", ProbeVia: topology.ViaHostPort}
			}
			n.Runners = append(n.Runners, a)
		}
		return n
	}
	regular := topology.WorkerNode{Worker: topology.Process{Name: "m", Role: topology.RoleMain}}
	cases := []struct {
		top  topology.Topology
		want string
	}{
		{topology.Topology{Workers: []topology.WorkerNode{node("a", "host-port"), node("b", "probed")}},
			"queue mode, 2 workers, external runners (1 through a probe)"},
		{topology.Topology{Workers: []topology.WorkerNode{node("a", topology.ViaInternal, "netns")}}, "queue mode, 1 worker, internal and external runners"},
		{topology.Topology{Workers: []topology.WorkerNode{node("a")}, Manual: []topology.WorkerNode{regular}}, "queue mode, 1 worker, no runner"},
		{topology.Topology{Manual: []topology.WorkerNode{regular}}, "queue mode, 0 workers, no runner"},
		{topology.Topology{Workers: []topology.WorkerNode{regular, node("a")}}, "mixed: queue mode and regular mode, 1 worker, 1 regular-mode main, no runner"},
		{topology.Topology{}, "no n8n main or worker found"},
	}
	for _, c := range cases {
		if got := shapeLine(c.top); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// A worker in a worker pool takes its jobs from its pool's queue: the
// ceiling, the slots and the CPU sampler leave it and its runners out (its
// internal one, and the lab runner, whose broker URI reaches it once the
// other worker's broker moves to another port), and the page says so
// without naming the pool.
func TestPoolWorker(t *testing.T) {
	var ps []topology.Process
	for _, f := range []string{"inspect-lab-main.json", "inspect-lab-worker-1.json", "inspect-lab-runner-1-1.json", "inspect-internal-worker.json"} {
		ps = append(ps, fixtureProcess(t, f))
	}
	ps[3].Settings.Pool = topology.Of("heavy")
	ps[1].Settings.BrokerPort = topology.Of(5699)
	r := &Report{Processes: ps, Topology: topology.Pair(ps), Measured: []ServiceTime{{Stage: "job", Source: "redis", Time: time.Second}}}
	c := New(Config{})
	c.evaluate(r)
	c.bound(r)
	got := Verdict(r)
	if got[0] != "queue mode, 1 worker, no runner, 1 pool worker (not modelled)" {
		t.Errorf("first line %q", got[0])
	}
	hasLines(t, got, "worker fx-internal-worker: takes its jobs from its worker pool's queue (jobs-<pool>, N8N_WORKER_POOL_NAME), not from jobs: its slots, its runners (10 (internal)+10) and its CPU are left out of this ceiling")
	if text := strings.Join(got, "\n"); strings.Contains(text, "heavy") {
		t.Errorf("the page names the pool:\n%s", text)
	}
	if r.Verdict == nil || len(r.Verdict.Workers) != 1 || r.Verdict.Workers[0].Name != "fx-worker-1" {
		t.Fatalf("verdict %+v, want fx-worker-1 alone", r.Verdict)
	}
	want := `
# HELP n8n_runner_max_concurrency Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="fx-internal-worker/internal",worker=""} 10
n8n_runner_max_concurrency{runner="fx-runner-1-1",worker=""} 10
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_runner_max_concurrency"); err != nil {
		t.Error(err)
	}
	s := newCPUSampler(CPUConfig{}, nil)
	s.point(ps)
	var sampled []string
	for _, p := range s.procs {
		sampled = append(sampled, p.Name)
	}
	if strings.Join(sampled, " ") != "fx-main fx-worker-1" {
		t.Errorf("the CPU sampler reads %v, want fx-main and fx-worker-1 alone", sampled)
	}
}

// A worker whose pool setting cannot be read leaves no verdict: which
// queue its slots serve is unknown.
func TestPoolUnknown(t *testing.T) {
	ps := []topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json")}
	ps[0].Settings.Pool = topology.Setting[string]{Unknown: "N8N_WORKER_POOLS_ENABLED: from Secret n8n/env"}
	r := &Report{Processes: ps, Topology: topology.Pair(ps), Measured: []ServiceTime{{Stage: "job", Source: "redis", Time: time.Second}}}
	New(Config{}).evaluate(r)
	if r.Verdict != nil || !strings.Contains(r.VerdictErr, "worker pool's queue is unknown (N8N_WORKER_POOLS_ENABLED: from Secret n8n/env)") {
		t.Errorf("verdict %v, error %q", r.Verdict, r.VerdictErr)
	}
}
