package collector

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Each cause is told apart from the others by its own evidence, and the
// first that holds (no runner, unresponsive, at capacity) wins.
func TestRunnerStateJudgesEachCause(t *testing.T) {
	probed := topology.WorkerNode{Worker: topology.Process{Name: "w1", Role: topology.RoleWorker},
		Runners: []topology.Attachment{{Probe: "p", ProbeRoute: "r1"}}}
	bare := topology.WorkerNode{Worker: probed.Worker, Runners: []topology.Attachment{{Via: topology.ViaHostPort}}}
	none := topology.WorkerNode{Worker: probed.Worker}
	wait := &TaskWait{Time: 4 * time.Second}
	conn := brokerprobe.Stats{RunnerConnections: 1, Running: 1, InferredLimit: 1}
	frozen := conn
	frozen.Unresponsive = 1
	idle := brokerprobe.Stats{RunnerConnections: 1, InferredLimit: 1}
	for _, c := range []struct {
		name    string
		w       topology.WorkerNode
		probes  []brokerprobe.Stats
		covered bool
		wait    *TaskWait
		want    RunnerState
	}{
		{"no runner in the topology", none, nil, true, wait, RunnerNone},
		{"probed, nothing connected", probed, []brokerprobe.Stats{{}}, true, wait, RunnerNone},
		{"probed, nothing connected, nothing waits", probed, []brokerprobe.Stats{{}}, true, nil, RunnerNone},
		{"a launcher stands in for its runner", probed, []brokerprobe.Stats{{LauncherConnections: 1}}, true, nil, RunnerOK},
		{"probed, silent while it holds work", probed, []brokerprobe.Stats{frozen}, true, wait, RunnerUnresponsive},
		{"probed, every slot busy, requests wait", probed, []brokerprobe.Stats{conn}, true, wait, RunnerAtCapacity},
		{"probed, every slot busy, nothing waits", probed, []brokerprobe.Stats{conn}, true, &TaskWait{}, RunnerOK},
		{"probed, a slot free, requests wait", probed, []brokerprobe.Stats{idle}, true, wait, RunnerOK},
		{"unprobed, requests wait", bare, nil, false, wait, RunnerAtCapacity},
		{"unprobed, wait unmeasured", bare, nil, false, nil, RunnerOK},
		{"partly probed, the probe sees no connection", bare, []brokerprobe.Stats{{}}, false, nil, RunnerOK},
		{"partly probed, the probed one frozen", bare, []brokerprobe.Stats{frozen}, false, nil, RunnerUnresponsive},
	} {
		got := runnerState(c.w, false, c.probes, c.covered, c.wait)
		if got.State != c.want || got.Worker != "w1" || (got.State == RunnerOK) != (got.Why == "") {
			t.Errorf("%s: %+v, want %s", c.name, got, c.want)
		}
	}
	// Spread runners may serve it: with none known it is ambiguous; a
	// known runner is judged as before.
	if got := runnerState(none, true, nil, true, wait); got.State != RunnerAmbiguous {
		t.Errorf("spread, none known: %s, want ambiguous", got.State)
	}
	if got := runnerState(bare, true, nil, false, wait); got.State != RunnerAtCapacity {
		t.Errorf("spread, one known, requests wait: %s, want at_capacity", got.State)
	}
}

// The lab's host exporter with its two in-process probes: the runner
// behind runner-1-2 holds work in silence, so worker 1 is unresponsive;
// /metrics gives one series per state, 1 for that one, and / names the
// cause and the fix. Once the runners disconnect, it has no runner.
func TestRunnerStateFromProbeRoutes(t *testing.T) {
	cs := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"),
		labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 2), labRunner(t, "fx-runner-1-2", "http://127.0.0.1:5712", 3)}
	ok := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", RunnerConnections: 1, InferredLimit: 2, AcceptTimeouts: 4, UnresponsiveCloses: 1})
	frozen := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-2", RunnerConnections: 1, Running: 3, InferredLimit: 3, Unresponsive: 1, AcceptTimeouts: 2, Drains: 1})
	c := New(Config{Probes: labProbes(ok, frozen)})
	r := &Report{Processes: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	c.judgeRunners(r)
	if len(r.Runners) != 1 || r.Runners[0].State != RunnerUnresponsive {
		t.Fatalf("runner states %+v, want worker 1 unresponsive", r.Runners)
	}
	want := `n8n_worker_runner_state{state="ambiguous",worker="fx-worker-1"} 0
n8n_worker_runner_state{state="at_capacity",worker="fx-worker-1"} 0
n8n_worker_runner_state{state="no_runner",worker="fx-worker-1"} 0
n8n_worker_runner_state{state="ok",worker="fx-worker-1"} 0
n8n_worker_runner_state{state="unresponsive",worker="fx-worker-1"} 1
`
	if got := seriesText(t, reportCollector{r}, "n8n_worker_runner_state"); got != want {
		t.Errorf("series:\n%s\nwant\n%s", got, want)
	}
	hasLines(t, Verdict(r), "runners of fx-worker-1: unresponsive (1 runner connection(s) through probe runner-1-1, probe runner-1-2 hold tasks",
		"restart it (n8n closes it only after missed heartbeats",
		// Both probes' broker interventions, summed, with the lab's 2 s default.
		"broker of fx-worker-1, since its probes started: cancelled 6 task(s) its runners did not accept within N8N_RUNNERS_TASK_ACCEPT_TIMEOUT (2 s); "+
			"closed 1 runner connection(s) with 1002 (unresponsive, or a missed heartbeat); told 1 runner connection(s) to drain (n8n shutting down): a runner accepts on its event loop")
	if got := seriesText(t, reportCollector{r}, "n8n_worker_task_accept_timeout_seconds"); got != "n8n_worker_task_accept_timeout_seconds{worker=\"fx-worker-1\"} 2\n" {
		t.Errorf("accept timeout series %q", got)
	}

	c = New(Config{Probes: labProbes(newFakeProbeStats(brokerprobe.Stats{}), newFakeProbeStats(brokerprobe.Stats{}))})
	r = &Report{Processes: cs, Topology: c.pair(cs)}
	c.judgeRunners(r)
	if len(r.Runners) != 1 || r.Runners[0].State != RunnerNone {
		t.Fatalf("runner states %+v, want worker 1 without a runner", r.Runners)
	}
	hasLines(t, Verdict(r), "runners of fx-worker-1: no_runner (no runner is connected through probe runner-1-1, probe runner-1-2)")
	if text := strings.Join(Verdict(r), "\n"); strings.Contains(text, "broker of") {
		t.Errorf("a broker line without interventions:\n%s", text)
	}
}

// Drains alone are news, not trouble: the line gives no fix.
func TestBrokerLineDrainsOnly(t *testing.T) {
	w := WorkerRunners{Worker: "w1", Drains: 2, AcceptTimeout: topology.Setting[int]{Unknown: "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT: may come from Secret s"}}
	if got, want := brokerLine(w), "broker of w1, since its probes started: told 2 runner connection(s) to drain (n8n shutting down)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	w.AcceptTimeouts = 1
	if got := brokerLine(w); !strings.Contains(got, "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT (unknown)") || !strings.Contains(got, acceptFix) {
		t.Errorf("unknown setting: %q", got)
	}
}

// A sidecar's figures count for the worker whose runner dials that probe
// process on that route, and for no other: a route label two probes share
// (both default to probe-1) is told apart by the probe.
func TestRoutesOfMatchesProbeAndRoute(t *testing.T) {
	w := topology.WorkerNode{Runners: []topology.Attachment{{Probe: "sidecar-a", ProbeRoute: "probe-1"}}}
	routes := []routeStats{
		{probe: "sidecar-b", route: "probe-1", stats: fixedStats{RunnerConnections: 0}},
		{probe: "sidecar-a", route: "probe-1", stats: fixedStats{RunnerConnections: 1}},
	}
	got, covered := routesOf(w, routes)
	if !covered || len(got) != 1 || got[0].RunnerConnections != 1 {
		t.Fatalf("routesOf: %+v covered %v, want sidecar-a's one reading", got, covered)
	}
	if _, covered := routesOf(w, routes[:1]); covered {
		t.Error("covered by another probe's route")
	}
	// Two runners dialling one route count its figures once.
	w.Runners = append(w.Runners, w.Runners[0])
	if got, covered := routesOf(w, routes); !covered || len(got) != 1 {
		t.Errorf("two runners on one route: %d readings, covered %v; want 1, true", len(got), covered)
	}
}

// seriesText is family name's series as c exposes them (every family's
// for ""), without the HELP and TYPE lines.
func seriesText(t *testing.T, c prometheus.Collector, name string) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if name == "" || mf.GetName() == name {
			if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
				t.Fatal(err)
			}
		}
	}
	var lines []string
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "")
}
