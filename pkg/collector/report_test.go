package collector

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fixtureProcess loads real inspect JSON from pkg/dockerstats' test data.
func fixtureProcess(t *testing.T, file string) topology.Process {
	t.Helper()
	c, ok := dockerstats.FromInspect(dockertest.Inspect(t, "../dockerstats/testdata/"+file))
	if !ok {
		t.Fatalf("%s is not n8n", file)
	}
	return c
}

// labReport is the lab fixtures (main, worker 15, runner 10, probe) plus a
// second worker without a runner, measured with a 3 s job time.
func labReport(t *testing.T) *Report {
	w2 := fixtureProcess(t, "inspect-lab-worker-1.json")
	w2.ID, w2.Name, w2.Settings.BrokerPort, w2.Settings.TaskRequestTimeout = "w2", "fx-worker-2", topology.Of(5699), topology.Of(8)
	cs := []topology.Process{
		fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"),
		fixtureProcess(t, "inspect-lab-runner-1-1.json"), fixtureProcess(t, "inspect-lab-probe-1.json"), w2,
	}
	r := &Report{Processes: cs, Topology: topology.Pair(cs), Memory: map[string]topology.Memory{}}
	r.Memory[cs[2].ID] = topology.Memory{WorkingSet: 3 << 30, RSS: 2 << 30, Limit: 4 << 30, OOMKills: 1}
	r.Measured = []ServiceTime{{Stage: "job", Source: "redis", Time: 3 * time.Second}}
	r.Queue = map[string]int64{"waiting": 5, "active": 15}
	r.addSource(SourceResult{Name: "docker", Up: true, Duration: 20 * time.Millisecond})
	r.addSource(SourceResult{Name: "redis", Up: false, Err: "refused"})
	New(Config{}).evaluate(r)
	return r
}

type reportCollector struct{ r *Report }

func (c reportCollector) Describe(ch chan<- *prometheus.Desc) { New(Config{}).Describe(ch) }
func (c reportCollector) Collect(ch chan<- prometheus.Metric) { Emit(c.r, ch) }

func TestEmitLabTopology(t *testing.T) {
	want := `
# HELP n8n_worker_concurrency Worker concurrency (N8N_CONCURRENCY_PRODUCTION_LIMIT or --concurrency); for a regular-mode main, its N8N_CONCURRENCY_PRODUCTION_LIMIT, +Inf for none.
# TYPE n8n_worker_concurrency gauge
n8n_worker_concurrency{worker="fx-worker-1"} 15
n8n_worker_concurrency{worker="fx-worker-2"} 15
# HELP n8n_runner_max_concurrency Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="fx-runner-1-1",worker="fx-worker-1"} 10
# HELP n8n_worker_runner_capacity Sum of the limits of the runners attached to the worker; 0 = worker without runner.
# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="fx-worker-1"} 10
n8n_worker_runner_capacity{worker="fx-worker-2"} 0
# HELP n8n_worker_effective_concurrency min(worker concurrency, runner capacity).
# TYPE n8n_worker_effective_concurrency gauge
n8n_worker_effective_concurrency{worker="fx-worker-1"} 10
n8n_worker_effective_concurrency{worker="fx-worker-2"} 0
# HELP n8n_worker_bottleneck 1 on the side that limits the worker (runner or worker).
# TYPE n8n_worker_bottleneck gauge
n8n_worker_bottleneck{component="runner",worker="fx-worker-1"} 1
n8n_worker_bottleneck{component="runner",worker="fx-worker-2"} 0
n8n_worker_bottleneck{component="worker",worker="fx-worker-1"} 0
n8n_worker_bottleneck{component="worker",worker="fx-worker-2"} 0
# HELP n8n_worker_task_request_timeout_seconds N8N_RUNNERS_TASK_REQUEST_TIMEOUT: how long the worker's broker lets a Code task's request wait for a runner slot before the execution fails with "Task request timed out".
# TYPE n8n_worker_task_request_timeout_seconds gauge
n8n_worker_task_request_timeout_seconds{worker="fx-worker-1"} 60
n8n_worker_task_request_timeout_seconds{worker="fx-worker-2"} 8
# HELP n8n_cluster_effective_concurrency Sum of the workers' effective concurrency.
# TYPE n8n_cluster_effective_concurrency gauge
n8n_cluster_effective_concurrency 10
# HELP n8n_cluster_ceiling_executions_per_second Executions per second the cluster can complete: the minimum over every resource, slots and CPU alike (the slots alone until a CPU demand is measured).
# TYPE n8n_cluster_ceiling_executions_per_second gauge
n8n_cluster_ceiling_executions_per_second 3.3333333333333335
# HELP n8n_service_time_seconds Time one execution holds a slot, per stage (job = worker, task = runner) and source.
# TYPE n8n_service_time_seconds gauge
n8n_service_time_seconds{source="redis",stage="job"} 3
# HELP n8n_exporter_service_time_used 1 for the source whose service time the ceiling uses, per stage.
# TYPE n8n_exporter_service_time_used gauge
n8n_exporter_service_time_used{source="redis",stage="job"} 1
n8n_exporter_service_time_used{source="redis",stage="task"} 1
# HELP n8n_queue_jobs Bull jobs per state, read from Redis at scrape time.
# TYPE n8n_queue_jobs gauge
n8n_queue_jobs{state="active"} 15
n8n_queue_jobs{state="waiting"} 5
# HELP n8n_exporter_source_up 1 if the source answered in this scrape.
# TYPE n8n_exporter_source_up gauge
n8n_exporter_source_up{source="docker"} 1
n8n_exporter_source_up{source="redis"} 0
`
	names := []string{"n8n_worker_concurrency", "n8n_runner_max_concurrency", "n8n_worker_runner_capacity",
		"n8n_worker_effective_concurrency", "n8n_worker_bottleneck", "n8n_worker_task_request_timeout_seconds", "n8n_cluster_effective_concurrency",
		"n8n_cluster_ceiling_executions_per_second", "n8n_service_time_seconds", "n8n_exporter_service_time_used",
		"n8n_queue_jobs", "n8n_exporter_source_up"}
	if err := testutil.CollectAndCompare(reportCollector{labReport(t)}, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
}

func TestEmitContainerMemory(t *testing.T) {
	want := `
# HELP n8n_container_memory_working_set_bytes Usage minus inactive file cache, as docker stats shows.
# TYPE n8n_container_memory_working_set_bytes gauge
n8n_container_memory_working_set_bytes{container="fx-runner-1-1",role="runner"} 3.221225472e+09
# HELP n8n_container_oom_killed 1 if Docker reports the container OOM-killed or its cgroup counted an OOM kill.
# TYPE n8n_container_oom_killed gauge
n8n_container_oom_killed{container="fx-main",role="main"} 0
n8n_container_oom_killed{container="fx-probe-1",role="probe"} 0
n8n_container_oom_killed{container="fx-runner-1-1",role="runner"} 1
n8n_container_oom_killed{container="fx-worker-1",role="worker"} 0
n8n_container_oom_killed{container="fx-worker-2",role="worker"} 0
`
	if err := testutil.CollectAndCompare(reportCollector{labReport(t)}, strings.NewReader(want),
		"n8n_container_memory_working_set_bytes", "n8n_container_oom_killed"); err != nil {
		t.Fatal(err)
	}
}

func TestVerdictInWords(t *testing.T) {
	got := strings.Join(Verdict(labReport(t)), "\n")
	for _, want := range []string{
		"worker fx-worker-1: 15 slots, runners 10 → effective 10, runner-bound; ceiling 3.3/s at 3.0 s per execution",
		"worker fx-worker-2 has no runner",
		"cluster: 30 worker slots, runner capacity 10 → effective 10; ceiling 3.3 executions/s",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}

func TestServiceTimeChoice(t *testing.T) {
	cases := []struct {
		name      string
		override  time.Duration
		measured  []ServiceTime
		job, task time.Duration
		jobSrc    Source
	}{
		{"override wins", 2 * time.Second, []ServiceTime{{Stage: "job", Source: "redis", Time: time.Second}}, 2 * time.Second, 2 * time.Second, "config"},
		{"redis before n8n", 0, []ServiceTime{{Stage: "job", Source: "redis", Time: 1110 * time.Millisecond}, {Stage: "job", Source: "n8n", Time: 1055 * time.Millisecond}}, 1110 * time.Millisecond, 1110 * time.Millisecond, "redis"},
		{"two stages", 0, []ServiceTime{{Stage: "job", Source: "n8n", Time: 3 * time.Second}, {Stage: "task", Source: "probe", Time: time.Second}}, 3 * time.Second, time.Second, "n8n"},
		{"redis first beside a probe too", 0, []ServiceTime{{Stage: "job", Source: "redis", Time: 1150 * time.Millisecond}, {Stage: "job", Source: "n8n", Time: 1100 * time.Millisecond}, {Stage: "task", Source: "probe", Time: time.Second}}, 1150 * time.Millisecond, time.Second, "redis"},
		{"job below task", 0, []ServiceTime{{Stage: "job", Source: "n8n", Time: 800 * time.Millisecond}, {Stage: "task", Source: "probe", Time: time.Second}}, time.Second, time.Second, "probe"},
		{"probe only", 0, []ServiceTime{{Stage: "task", Source: "probe", Time: time.Second}}, time.Second, time.Second, "probe"},
		{"nothing", 0, nil, 0, 0, ""},
	}
	for _, c := range cases {
		r := &Report{Measured: c.measured}
		s := New(Config{ServiceTime: c.override}).chooseServiceTime(r)
		if s.Job != c.job || s.Task != c.task || r.Used["job"].Source != c.jobSrc {
			t.Errorf("%s: got %+v used %+v", c.name, s, r.Used)
		}
	}
}

func TestParseExecutionDurations(t *testing.T) {
	f, err := os.Open("testdata/n8n-main-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := parseExecutionDurations(f)
	if err != nil || h.count != 50 || h.sum != 43 {
		t.Fatalf("sum %v count %d err %v", h.sum, h.count, err)
	}
	for _, bad := range []string{"", "n8n_workflow_execution_duration_seconds 1\n", "garbage{{{\n"} {
		if _, err := parseExecutionDurations(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
