package collector

import (
	"strconv"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// A runner whose limit its environment hides takes the limit its probe
// infers, as observed, and the verdict counts it; a known limit stays, and
// a route two runners dial gives neither a limit.
func TestObserveLimits(t *testing.T) {
	hidden := topology.Setting[int]{Unknown: "N8N_RUNNERS_MAX_CONCURRENCY: may come from Secret n8n/env", Var: "N8N_RUNNERS_MAX_CONCURRENCY"}
	r1 := labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 0)
	r1.Settings.RunnerLimit = hidden
	r2 := labRunner(t, "fx-runner-1-2", "http://127.0.0.1:5712", 3)
	cs := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"), r1, r2}
	c := New(Config{Probes: labProbes(newFakeProbeStats(brokerprobe.Stats{InferredLimit: 4}), newFakeProbeStats(brokerprobe.Stats{InferredLimit: 7}))})
	r := &Report{Processes: cs, Topology: c.pair(cs)}
	c.observeLimits(r)
	got := map[string]topology.Setting[int]{}
	for _, a := range r.Topology.Workers[0].Runners {
		got[a.Runner.Name] = a.Runner.Settings.RunnerLimit
	}
	if l := got["fx-runner-1-1"]; l.Value != 4 || l.From != topology.SourceObserved {
		t.Errorf("hidden limit: %+v, want 4 observed", l)
	}
	if l := got["fx-runner-1-2"]; l.Value != 3 {
		t.Errorf("known limit replaced: %+v", l)
	}
	c.evaluate(r)
	if r.Verdict == nil || r.Verdict.Workers[0].RunnerCapacity != 7 {
		t.Errorf("verdict %+v, want runner capacity 4+3", r.Verdict)
	}

	// Both runners on route runner-1-1: its inferred limit is theirs together.
	r2.Settings.Broker = r1.Settings.Broker
	cs = []topology.Process{cs[0], cs[1], r1, r2}
	r = &Report{Processes: cs, Topology: c.pair(cs)}
	c.observeLimits(r)
	for _, a := range r.Topology.Workers[0].Runners {
		if a.Runner.Name == "fx-runner-1-1" && a.Runner.Settings.RunnerLimit.Known() {
			t.Errorf("shared route gave a limit: %+v", a.Runner.Settings.RunnerLimit)
		}
	}
}

// `/` gives each setting's source: a limit the probe saw reads observed,
// the worker's concurrency its flag, and a hidden one its reason.
func TestLandingSettingSources(t *testing.T) {
	r1 := labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 0)
	r1.Settings.RunnerLimit = observedLimit(4)
	w := fixtureProcess(t, "inspect-lab-worker-1.json")
	w.Settings.TaskRequestTimeout = topology.Setting[int]{Unknown: "N8N_RUNNERS_TASK_REQUEST_TIMEOUT: may come from Secret n8n/env", Var: "N8N_RUNNERS_TASK_REQUEST_TIMEOUT"}
	rows := settingRows(&Report{Processes: []topology.Process{r1, w}})
	want := map[settingRow]bool{
		{Name: "fx-runner-1-1", Var: "N8N_RUNNERS_MAX_CONCURRENCY", Value: "4", From: "observed"}:                       true,
		{Name: w.Name, Var: "N8N_RUNNERS_TASK_REQUEST_TIMEOUT", Value: "unknown", From: "may come from Secret n8n/env"}: true,
		{Name: w.Name, Var: topology.ConcurrencyFlag, Value: strconv.Itoa(w.Settings.Concurrency.Value), From: "flag"}:  true,
	}
	for _, row := range rows {
		delete(want, row)
	}
	if len(want) != 0 {
		t.Errorf("rows %+v lack %+v", rows, want)
	}
}
