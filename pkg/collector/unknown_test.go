package collector

import (
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A setting the platform could not read (a Kubernetes Secret) leaves no
// verdict and no series for it, rather than a default; the worker is
// labelled by its instance (the pod).
func TestUnknownSettingGivesNoVerdict(t *testing.T) {
	pod := func(ctr string, role topology.Role) topology.Process {
		return topology.Process{ID: "n8n/w-0/" + ctr, Name: "n8n/w-0/" + ctr, Instance: "n8n/w-0", Role: role,
			Net: topology.Network{Namespace: "n8n/w-0"}}
	}
	w := pod("n8n", topology.RoleWorker)
	w.Settings.BrokerPort = topology.Of(5679)
	w.Settings.Concurrency = topology.Setting[int]{Unknown: "N8N_CONCURRENCY_PRODUCTION_LIMIT: from Secret n8n/env"}
	rn := pod("runner", topology.RoleRunner)
	rn.Settings.Broker, rn.Settings.RunnerLimit = topology.Of(topology.Endpoint{Host: "localhost", Port: 5679}), topology.Of(4)
	lost := pod("lost", topology.RoleRunner)
	lost.Settings.Broker = topology.Setting[topology.Endpoint]{Unknown: "N8N_RUNNERS_TASK_BROKER_URI: from Secret n8n/env"}
	lost.Settings.RunnerLimit = topology.Of(2)
	r := &Report{Topology: topology.Pair([]topology.Process{w, rn, lost})}
	New(Config{}).evaluate(r)
	got := strings.Join(Verdict(r), "\n")
	if r.Verdict != nil || got != "queue mode, 1 worker, external runner\nno verdict: worker n8n/w-0: concurrency unknown (N8N_CONCURRENCY_PRODUCTION_LIMIT: from Secret n8n/env)" {
		t.Errorf("verdict %q", got)
	}
	want := `
# HELP n8n_runner_max_concurrency Task runner limit N8N_RUNNERS_MAX_CONCURRENCY; runner <process>/internal is the process's own; worker is empty for a runner that serves no production execution.
# TYPE n8n_runner_max_concurrency gauge
n8n_runner_max_concurrency{runner="n8n/w-0/lost",worker=""} 2
n8n_runner_max_concurrency{runner="n8n/w-0/runner",worker="n8n/w-0"} 4
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_runner_max_concurrency", "n8n_worker_concurrency"); err != nil {
		t.Error(err)
	}
	if line := unpairedLine(r.Topology.Unpaired[0]); line != "runner n8n/w-0/lost reaches no known worker (N8N_RUNNERS_TASK_BROKER_URI: from Secret n8n/env); its slots are not counted" {
		t.Errorf("unpaired: %q", line)
	}
}

// A worker no runner reaches whose N8N_RUNNERS_MODE cannot be read may run
// its own runner or none: no verdict.
func TestUnknownRunnersModeGivesNoVerdict(t *testing.T) {
	w := topology.Process{ID: "w", Name: "w", Role: topology.RoleWorker}
	w.Settings.Concurrency = topology.Of(10)
	w.Settings.RunnersMode = topology.Setting[topology.RunnersMode]{Unknown: "N8N_RUNNERS_MODE: from Secret n8n/env"}
	r := &Report{Topology: topology.Pair([]topology.Process{w})}
	New(Config{}).evaluate(r)
	want := "no verdict: worker w: no runner reaches it and its runner mode is unknown (N8N_RUNNERS_MODE: from Secret n8n/env)"
	if got := Verdict(r); r.Verdict != nil || len(got) != 2 || got[1] != want {
		t.Errorf("verdict %q", got)
	}
}
