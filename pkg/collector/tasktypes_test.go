package collector

import (
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// A launcher with JavaScript 3 and Python 2 beside a runner of
// JavaScript alone: each type's slots are a pool of its own, so the
// worker (concurrency 15) has 3+4 JavaScript slots and 2 Python ones; the
// verdict is JavaScript's, and each type's ceiling is its slots over the
// task time (1 s each stage). A Python-only launcher gives a worker no JavaScript slot.
func TestTaskTypeVerdicts(t *testing.T) {
	launcher := labRunner(t, "fx-launcher", "http://127.0.0.1:5689", 3)
	launcher.Role = topology.RoleLauncher
	launcher.Settings.TaskPools = []topology.TaskPool{
		{Type: topology.TaskJavaScript, Limit: topology.Of(3)}, {Type: topology.TaskPython, Limit: topology.Of(2)}}
	runner := labRunner(t, "fx-runner", "http://127.0.0.1:5689", 4)
	cs := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"), launcher, runner}
	c := New(Config{ServiceTime: time.Second})
	r := &Report{Processes: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	if r.Verdict == nil || r.Verdict.Workers[0].RunnerCapacity != 7 || len(r.Types) != 2 {
		t.Fatalf("verdict %+v types %+v (%s)", r.Verdict, r.Types, r.VerdictErr)
	}
	want := `n8n_worker_task_type_effective_concurrency{task_type="javascript",worker="fx-worker-1"} 7
n8n_worker_task_type_effective_concurrency{task_type="python",worker="fx-worker-1"} 2
`
	if got := seriesText(t, reportCollector{r}, "n8n_worker_task_type_effective_concurrency"); got != want {
		t.Errorf("effective:\n%s\nwant\n%s", got, want)
	}
	want = `n8n_cluster_task_type_ceiling_executions_per_second{task_type="javascript"} 7
n8n_cluster_task_type_ceiling_executions_per_second{task_type="python"} 2
`
	if got := seriesText(t, reportCollector{r}, "n8n_cluster_task_type_ceiling_executions_per_second"); got != want {
		t.Errorf("ceilings:\n%s\nwant\n%s", got, want)
	}
	want = `n8n_runner_task_type_max_concurrency{runner="fx-launcher",task_type="javascript",worker="fx-worker-1"} 3
n8n_runner_task_type_max_concurrency{runner="fx-launcher",task_type="python",worker="fx-worker-1"} 2
n8n_runner_task_type_max_concurrency{runner="fx-runner",task_type="javascript",worker="fx-worker-1"} 4
`
	if got := seriesText(t, reportCollector{r}, "n8n_runner_task_type_max_concurrency"); got != want {
		t.Errorf("limits:\n%s\nwant\n%s", got, want)
	}

	hasLines(t, Verdict(r), "task types (a task takes only a slot of its type): javascript 7 runner slots, effective 7, slot ceiling 7.00/s; python 2 runner slots, effective 2, slot ceiling 2.00/s")

	launcher.Settings.TaskPools = launcher.Settings.TaskPools[1:]
	launcher.Settings.RunnerLimit = topology.Of(0)
	cs = []topology.Process{cs[0], cs[1], launcher}
	r = &Report{Processes: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	if r.Verdict == nil || r.Verdict.WorkersWithoutRunner != 1 || len(r.Types) != 2 || r.Types[1].Verdict.RunnerCapacity != 2 {
		t.Errorf("Python-only: verdict %+v types %+v (%s)", r.Verdict, r.Types, r.VerdictErr)
	}
}
