package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeLab stands in for the real-n8n lab, which unit tests must not start
// (the lead's e2e suite owns it). testdata/fake-apply.sh plays up.sh: it
// writes the case's runner limit and memory limit to a state file and
// prints `lab:` lines for two local servers:
//   - a webhook whose "runner" runs at most <limit> requests at once, each
//     holding its slot for a fixed delay and 100 MiB of pretend memory;
//   - an exporter serving the n8n_ metrics the real exporter would, built
//     from the state file and from what the webhook is doing: topology,
//     ceiling = limit / task time, the slot resources (the runner's
//     binding) and an idle host CPU, probe running tasks and task-time
//     histogram, runner working set, and an OOM kill once the pretend
//     memory passes the limit (those requests then fail with HTTP 500).
type fakeLab struct {
	state    string
	delay    time.Duration
	webhook  *httptest.Server
	exporter *httptest.Server

	mu       sync.Mutex
	running  int
	peakMiB  int
	taskSum  float64
	tasks    int
	oomKills int
}

const fakeTaskMiB = 100

func newFakeLab(t *testing.T, delay time.Duration) *fakeLab {
	t.Helper()
	f := &fakeLab{state: filepath.Join(t.TempDir(), "state"), delay: delay}
	if err := os.WriteFile(f.state, []byte("10\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.webhook = httptest.NewServer(http.HandlerFunc(f.serveWebhook))
	f.exporter = httptest.NewServer(http.HandlerFunc(f.serveMetrics))
	t.Cleanup(f.webhook.Close)
	t.Cleanup(f.exporter.Close)
	t.Setenv("FAKE_STATE", f.state)
	t.Setenv("FAKE_WEBHOOK", f.webhook.URL+"/webhook/bench")
	t.Setenv("FAKE_EXPORTER", f.exporter.URL+"/metrics")
	return f
}

// settings reads what the apply hook wrote: runner limit and memory MiB.
func (f *fakeLab) settings() (limit, memMiB int) {
	b, _ := os.ReadFile(f.state)
	lines := strings.Fields(string(b))
	if len(lines) < 2 {
		return 10, 0
	}
	limit, _ = strconv.Atoi(lines[0])
	memMiB, _ = strconv.Atoi(lines[1])
	return limit, memMiB
}

func (f *fakeLab) acquire(ctx context.Context, limit, memMiB int) (ok, oom bool) {
	for {
		f.mu.Lock()
		if f.running < limit {
			f.running++
			mem := f.running * fakeTaskMiB
			f.peakMiB = max(f.peakMiB, mem)
			oom = memMiB > 0 && mem > memMiB
			if oom {
				f.oomKills++
			}
			f.mu.Unlock()
			return true, oom
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return false, false
		case <-time.After(time.Millisecond):
		}
	}
}

func (f *fakeLab) serveWebhook(w http.ResponseWriter, r *http.Request) {
	limit, memMiB := f.settings()
	ok, oom := f.acquire(r.Context(), limit, memMiB)
	if !ok {
		return
	}
	start := time.Now()
	time.Sleep(f.delay)
	f.mu.Lock()
	f.running--
	f.taskSum += time.Since(start).Seconds()
	f.tasks++
	f.mu.Unlock()
	if oom {
		http.Error(w, `{"message":"Task runner connection lost"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"ok":true}`)
}

func (f *fakeLab) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	limit, memMiB := f.settings()
	f.mu.Lock()
	running, tasks, sum, kills := f.running, f.tasks, f.taskSum, f.oomKills
	f.mu.Unlock()
	task := f.delay.Seconds()
	if tasks > 0 {
		task = sum / float64(tasks)
	}
	killed := 0
	if kills > 0 {
		killed = 1
	}
	fmt.Fprintf(w, `# TYPE n8n_worker_concurrency gauge
n8n_worker_concurrency{worker="n8n-lab-worker-1"} 15
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="n8n-lab-runner-1-1",worker="n8n-lab-worker-1"} %d
# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="n8n-lab-worker-1"} %d
# TYPE n8n_worker_effective_concurrency gauge
n8n_worker_effective_concurrency{worker="n8n-lab-worker-1"} %d
# TYPE n8n_worker_bottleneck gauge
n8n_worker_bottleneck{component="runner",worker="n8n-lab-worker-1"} 1
n8n_worker_bottleneck{component="worker",worker="n8n-lab-worker-1"} 0
# TYPE n8n_cluster_workers_without_runner gauge
n8n_cluster_workers_without_runner 0
# TYPE n8n_cluster_ceiling_executions_per_second gauge
n8n_cluster_ceiling_executions_per_second %g
# TYPE n8n_service_time_seconds gauge
n8n_service_time_seconds{source="probe",stage="task"} %g
n8n_service_time_seconds{source="probe",stage="job"} %g
n8n_service_time_seconds{source="n8n",stage="job"} 99
# TYPE n8n_exporter_service_time_used gauge
n8n_exporter_service_time_used{source="probe",stage="task"} 1
n8n_exporter_service_time_used{source="probe",stage="job"} 1
# TYPE n8n_runner_tasks_running gauge
n8n_runner_tasks_running{probe="probe-1"} %d
# TYPE n8n_runner_task_duration_seconds histogram
n8n_runner_task_duration_seconds_bucket{probe="probe-1",le="+Inf"} %d
n8n_runner_task_duration_seconds_sum{probe="probe-1"} %g
n8n_runner_task_duration_seconds_count{probe="probe-1"} %d
# TYPE n8n_container_memory_working_set_bytes gauge
n8n_container_memory_working_set_bytes{container="n8n-lab-runner-1-1",role="runner"} %d
n8n_container_memory_working_set_bytes{container="n8n-lab-worker-1",role="worker"} %d
# TYPE n8n_container_memory_limit_bytes gauge
n8n_container_memory_limit_bytes{container="n8n-lab-runner-1-1",role="runner"} %d
# TYPE n8n_container_oom_kills_total counter
n8n_container_oom_kills_total{container="n8n-lab-runner-1-1",role="runner"} %d
# TYPE n8n_container_oom_killed gauge
n8n_container_oom_killed{container="n8n-lab-runner-1-1",role="runner"} %d
# TYPE n8n_container_restarts gauge
n8n_container_restarts{container="n8n-lab-runner-1-1",role="runner"} 0
# TYPE n8n_resource_servers gauge
n8n_resource_servers{resource="slots:worker:n8n-lab-worker-1"} 15
n8n_resource_servers{resource="slots:runner:n8n-lab-worker-1"} %d
n8n_resource_servers{resource="cpu:host"} 2
# TYPE n8n_resource_demand_seconds gauge
n8n_resource_demand_seconds{resource="slots:worker:n8n-lab-worker-1"} %[5]g
n8n_resource_demand_seconds{resource="slots:runner:n8n-lab-worker-1"} %[5]g
n8n_resource_demand_seconds{resource="cpu:host"} 0.001
# TYPE n8n_cluster_bottleneck gauge
n8n_cluster_bottleneck{resource="slots:worker:n8n-lab-worker-1"} 0
n8n_cluster_bottleneck{resource="slots:runner:n8n-lab-worker-1"} 1
n8n_cluster_bottleneck{resource="cpu:host"} 0
`, limit, limit, min(limit, 15), float64(min(limit, 15))/task, task, task, running, tasks, sum, tasks,
		(80+running*fakeTaskMiB)*mib, 200*mib, memMiB*mib, kills, killed, limit)
}
