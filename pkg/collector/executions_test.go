package collector

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/demand"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// n8nMetrics serves testdata/n8n-main-metrics.txt: 50 executions.
func n8nMetrics(t *testing.T) string {
	body, err := os.ReadFile("testdata/n8n-main-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func regularTopology(t *testing.T) topology.Topology {
	return topology.Pair([]topology.Process{fixtureProcess(t, "inspect-regular-main.json")})
}

// With no Bull queue (regular mode) executions are counted from n8n's
// histogram on main's /metrics, else from the probes' completed tasks; in
// queue mode without Redis nothing counts them.
func TestExecutionCount(t *testing.T) {
	ctx := context.Background()
	probe := newFakeProbeStats(brokerprobe.Stats{TasksDone: 7})
	cases := []struct {
		name    string
		cfg     Config
		regular bool
		want    float64
		from    string
		err     string
	}{
		{"regular, n8n's histogram", Config{N8nMetricsURL: n8nMetrics(t), CPU: &CPUConfig{}}, true, 50, CountN8n, ""},
		{"regular, main's /metrics down, a probe", Config{N8nMetricsURL: "http://127.0.0.1:1/metrics", Probes: labProbes(probe), CPU: &CPUConfig{}}, true, 7, CountProbe, ""},
		{"regular, nothing to count with", Config{CPU: &CPUConfig{}}, true, 0, "", "no execution count"},
		{"queue without Redis", Config{N8nMetricsURL: n8nMetrics(t), CPU: &CPUConfig{}}, false, 0, "", errNotCounted.Error()},
	}
	for _, c := range cases {
		col := New(c.cfg)
		top := topology.Topology{Workers: []topology.WorkerNode{{Worker: topology.Process{Role: topology.RoleWorker}}}}
		if c.regular {
			top = regularTopology(t)
		}
		col.count.follow(top)
		n, from, err := col.count.completed(ctx, time.Now())
		if n != c.want || from != c.from || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v from %q, err %v", c.name, n, from, err)
		}
	}
}

// The sampler says which source it counted from, on / and as
// n8n_exporter_executions_source; queue mode without Redis is no source.
func TestExecutionCountReported(t *testing.T) {
	col := New(Config{N8nMetricsURL: n8nMetrics(t), CPU: &CPUConfig{Interval: time.Second}})
	col.count.follow(regularTopology(t))
	col.cpu.step(context.Background(), time.Now())
	r := &Report{Topology: regularTopology(t), Measured: []ServiceTime{{Stage: "job", Source: "n8n", Time: time.Second}}}
	col.evaluate(r)
	col.bound(r)
	if !strings.Contains(strings.Join(serviceLines(r), "\n"), "executions counted from n8n's own n8n_workflow_execution_duration_seconds count") {
		t.Errorf("service lines %q", serviceLines(r))
	}
	want := `
# HELP n8n_exporter_executions_source 1 for the source of n8n_cluster_executions_total: redis, n8n or probe.
# TYPE n8n_exporter_executions_source gauge
n8n_exporter_executions_source{source="n8n"} 1
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_exporter_executions_source"); err != nil {
		t.Error(err)
	}

	col.count.follow(topology.Topology{Workers: []topology.WorkerNode{{Worker: topology.Process{Role: topology.RoleWorker}}}})
	col.cpu.step(context.Background(), time.Now())
	if v := col.cpu.latest(); v.counted || v.source["executions"].Name != "" || v.waiting != errNotCounted.Error() {
		t.Errorf("queue mode without Redis: %+v", v)
	}
}

// A reading the probes counted while the window counts from main (one
// slow answer from a busy main) is skipped: the window and its demand
// stay. Main silent for a whole Window hands the window to the probes.
func TestCountFallbackKeepsTheWindow(t *testing.T) {
	s := New(Config{CPU: &CPUConfig{Interval: time.Second, Window: 10 * time.Second}}).cpu
	at := time.Unix(1000, 0)
	read := func(sec int, executions float64) demand.Reading {
		return demand.Reading{At: at.Add(time.Duration(sec) * time.Second), Executions: executions,
			CPU: map[string]float64{capacity.HostCPU: 0.5 * float64(sec)}}
	}
	for sec := 0; sec <= 20; sec++ {
		s.track(CountN8n, read(sec, float64(10*sec)))
	}
	if _, ok, why := s.tracker.Last(); !ok {
		t.Fatalf("no demand after 20 s of main's counts: %s", why)
	}
	s.track(CountProbe, read(21, 3))
	if _, ok, _ := s.tracker.Last(); !ok || s.from != CountN8n {
		t.Errorf("one probe-counted reading: window from %q, demand %v; want main's window and its demand", s.from, ok)
	}
	s.track(CountN8n, read(22, 220))
	s.track(CountProbe, read(32, 5))
	if _, ok, _ := s.tracker.Last(); ok || s.from != CountProbe {
		t.Errorf("main silent for 10 s: window from %q, demand %v; want a new window from the probes", s.from, ok)
	}
}
