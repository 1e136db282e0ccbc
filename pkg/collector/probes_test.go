package collector

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeProbeStats stands in for a brokerprobe.Probe's figures. A fake is
// needed to inject an exact state (all runner slots busy, a given task
// mean) that a real probe shows only under a timed load on real n8n.
type fakeProbeStats struct {
	s       brokerprobe.Stats // fixed figures
	running atomic.Int64      // overrides s.Running; tests flip it
	limit   atomic.Int64      // overrides s.InferredLimit
}

func newFakeProbeStats(s brokerprobe.Stats) *fakeProbeStats {
	f := &fakeProbeStats{s: s}
	f.running.Store(int64(s.Running))
	f.limit.Store(int64(s.InferredLimit))
	return f
}

func (f *fakeProbeStats) Stats() brokerprobe.Stats {
	s := f.s
	s.Running, s.InferredLimit = int(f.running.Load()), int(f.limit.Load())
	return s
}

func (f *fakeProbeStats) setRunning(n int) { f.running.Store(int64(n)) }
func (f *fakeProbeStats) setLimit(n int)   { f.limit.Store(int64(n)) }

// labRunner is the lab's runner fixture re-pointed at a probe's port.
func labRunner(t *testing.T, name, brokerURI string, limit int) topology.Process {
	c := fixtureProcess(t, "inspect-lab-runner-1-1.json")
	u, err := route.ParseURL(brokerURI)
	if err != nil {
		t.Fatal(err)
	}
	c.ID, c.Name, c.Settings.Broker, c.Settings.RunnerLimit = name+"-id", name, topology.Of(u.Endpoint), topology.Of(limit)
	return c
}

func labProbes(stats ...ProbeStats) []Probe {
	var ps []Probe
	for i, s := range stats {
		ps = append(ps, Probe{Stats: s, Config: brokerprobe.Config{Name: fmt.Sprintf("runner-1-%d", i+1),
			Listen: fmt.Sprintf("127.0.0.1:%d", 5711+i), Upstream: "http://127.0.0.1:5689"}})
	}
	return ps
}

// The lab's one host exporter runs the probes in-process; host-network
// runners dial them. Each runner counts for worker 1 through its probe.
func TestInProcessProbesPairLabRunners(t *testing.T) {
	cs := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json"),
		labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 2), labRunner(t, "fx-runner-1-2", "http://127.0.0.1:5712", 3)}
	c := New(Config{Probes: labProbes(newFakeProbeStats(brokerprobe.Stats{}), newFakeProbeStats(brokerprobe.Stats{}))})
	r := &Report{Processes: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	if len(r.Topology.Unpaired) != 0 || len(r.Topology.Workers) != 1 {
		t.Fatalf("topology: %+v", r.Topology)
	}
	var via []string
	for _, a := range r.Topology.Workers[0].Runners {
		via = append(via, a.Runner.Name+": "+a.Route())
	}
	want := "fx-runner-1-1: probe runner-1-1 (host-port) → host-port,fx-runner-1-2: probe runner-1-2 (host-port) → host-port"
	if got := strings.Join(via, ","); got != want {
		t.Errorf("pairing:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(Verdict(r), "\n"); !strings.Contains(got, "worker fx-worker-1: 15 slots, runners 2+3 → effective 5, runner-bound") {
		t.Errorf("verdict:\n%s", got)
	}
	if len(r.Processes) != 4 {
		t.Errorf("probe nodes must not become containers (memory rows, container metrics): %d", len(r.Processes))
	}

	// The exporter run as a container is discovered with the same listener
	// (fx-probe-1 on 127.0.0.1:5711): that probe is used, not a second node.
	cs = append(cs, fixtureProcess(t, "inspect-lab-probe-1.json"))
	top := c.pair(cs)
	if len(top.Probes) != 2 || top.Workers[0].Runners[0].Route() != "probe fx-probe-1 (host-port) → host-port" {
		t.Errorf("with the probe container discovered: probes %d, runner 1 via %q", len(top.Probes), top.Workers[0].Runners[0].Route())
	}
}

// n8nHistory serves an exact sequence of n8n histogram scrapes, each a
// count and a sum; the last one repeats.
func n8nHistory(t *testing.T, scrapes ...[2]float64) string {
	bodies := make([]string, len(scrapes))
	for i, s := range scrapes {
		bodies[i] = hist(int(s[0]), s[1])
	}
	return serveInTurn(t, bodies...)
}

// serveInTurn answers each request with the next body; the last repeats.
func serveInTurn(t *testing.T, bodies ...string) string {
	var i atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, bodies[min(int(i.Add(1))-1, len(bodies)-1)])
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// sampleAndGather takes one background read of n8n's histogram stamped
// at, then runs the service-time part of Gather over a fixed topology.
func sampleAndGather(c *Collector, top topology.Topology, at time.Time) *Report {
	c.sampleN8n(context.Background(), at)
	r := &Report{At: at, Topology: top}
	c.measureJobTime(r)
	c.measureTaskTime(r)
	c.evaluate(r)
	return r
}

// histAt serves n8n's histogram with every execution in buckets from le up,
// the shape a run of similar executions gives.
func histAt(count int, sum, le float64) string {
	out := "# TYPE n8n_workflow_execution_duration_seconds histogram\n"
	for _, b := range []float64{1, 2.5, 5, 10, 30} {
		n := 0
		if b >= le {
			n = count
		}
		out += fmt.Sprintf("n8n_workflow_execution_duration_seconds_bucket{le=\"%g\"} %d\n", b, n)
	}
	return out + fmt.Sprintf("n8n_workflow_execution_duration_seconds_bucket{le=\"+Inf\"} %d\n", count) +
		fmt.Sprintf("n8n_workflow_execution_duration_seconds_sum %g\nn8n_workflow_execution_duration_seconds_count %d\n", sum, count)
}

// Runner limit 2, worker 15, 1.06 s tasks, 20 VUs: jobs take ~10 s because
// they wait for a runner slot. n8n dates an execution at completion, so a
// delta is used only when no runner was saturated since its longest
// execution can have started. Saturated: the 10 s means are left out and the
// probe's task time stands in (runner-bound at 2/1.06 s). Just after the
// runner frees up, executions bounded by 2.5 s may still have waited: left
// out. A delta whose executions all started after the runner freed up (the
// read before it came 2.5 s or more after the last saturation) is used.
func TestSaturatedRunnerGatesN8nJobTime(t *testing.T) {
	probe := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", Running: 2, InferredLimit: 2,
		RecentTaskMean: 1060 * time.Millisecond, RecentTaskCount: 40})
	bodies := []string{histAt(100, 1000, 10), histAt(110, 1100, 10), histAt(120, 1112.5, 2.5), histAt(120, 1112.5, 2.5), histAt(130, 1125, 2.5)}
	c := New(Config{N8nMetricsURL: serveInTurn(t, bodies...), Probes: labProbes(probe)})
	top := c.pair([]topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json"), labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 2)})

	start := time.Now()
	steps := []struct {
		running int
		at      time.Duration // read time after start
		source  Source
		job     time.Duration
		note    string
	}{
		{2, 0, "probe", 1060 * time.Millisecond, "runner saturation before the exporter started is unknown"},
		{2, time.Second, "probe", 1060 * time.Millisecond, "a runner was saturated while they ran"},
		{1, 2 * time.Second, "probe", 1060 * time.Millisecond, "a runner was saturated while they ran"},
		{1, 10 * time.Second, "probe", 1060 * time.Millisecond, "before the exporter started"}, // no new executions
		{1, 20 * time.Second, "n8n", 1250 * time.Millisecond, "mean of 10 executions"},
	}
	for n, st := range steps {
		probe.setRunning(st.running)
		r := sampleAndGather(c, top, start.Add(st.at))
		u := r.Used["job"]
		lines := strings.Join(serviceLines(r), "\n")
		if u.Source != st.source || u.Time != st.job || !strings.Contains(lines, st.note) {
			t.Fatalf("scrape %d: job stage used %+v, want %s %v; page says:\n%s", n+1, u, st.source, st.job, lines)
		}
		if w := r.Verdict.Workers[0]; w.Bottleneck != "runner" {
			t.Fatalf("scrape %d: %+v, want runner-bound", n+1, w)
		}
	}
}

// Without probes today's behaviour stays (n8n's all-time mean at first),
// but a delta read while jobs wait in (real) Redis is left out.
func TestWaitingJobsGateN8nJobTime(t *testing.T) {
	rd := queuetest.Start(t)
	ctx := context.Background()
	url := n8nHistory(t, [2]float64{10, 10.5}, [2]float64{20, 110.5}, [2]float64{30, 130.5})
	c := New(Config{N8nMetricsURL: url, Queue: queue.NewReader(rd.Client, "bull")})
	top := c.pair([]topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json"), fixtureProcess(t, "inspect-lab-runner-1-1.json")})
	steps := []struct {
		waiting int
		want    time.Duration
	}{{0, 1050 * time.Millisecond}, {5, 1050 * time.Millisecond}, {0, 2 * time.Second}}
	for i, s := range steps {
		rd.Client.Del(ctx, "bull:jobs:wait")
		for j := range s.waiting {
			rd.Client.LPush(ctx, "bull:jobs:wait", j)
		}
		r := sampleAndGather(c, top, time.Now())
		if u := r.Used["job"]; u.Source != "n8n" || u.Time != s.want {
			t.Errorf("scrape %d (waiting %d): used %+v, want %v", i+1, s.waiting, u, s.want)
		}
	}
}

// n8n_worker_bottleneck is capacity's answer: on a tie the worker, with
// known times the lower ceiling, else the fewer slots.
func TestBottleneckFollowsCapacity(t *testing.T) {
	cases := []struct {
		name      string
		limit     int
		job, task time.Duration
		want      string
	}{
		{"tie in slots, no times", 15, 0, 0, "worker"},
		{"tie in ceilings", 15, time.Second, time.Second, "worker"},
		{"fewer runner slots, no times", 2, 0, 0, "runner"},
		{"fewer runner slots but a 10 s job", 2, 10 * time.Second, 1060 * time.Millisecond, "worker"},
	}
	for _, tc := range cases {
		c := New(Config{})
		cs := []topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json"), labRunner(t, "r", "http://127.0.0.1:5689", tc.limit)}
		r := &Report{Topology: c.pair(cs)}
		if tc.job > 0 {
			r.Measured = []ServiceTime{{Stage: "job", Source: "n8n", Time: tc.job}, {Stage: "task", Source: "probe", Time: tc.task}}
		}
		c.evaluate(r)
		if got := string(r.Verdict.Workers[0].Bottleneck); got != tc.want {
			t.Errorf("%s: capacity says %s, want %s", tc.name, got, tc.want)
		}
		wantBottleneck(t, r, tc.want)
	}
}

// wantBottleneck checks the emitted n8n_worker_bottleneck for fx-worker-1.
func wantBottleneck(t *testing.T, r *Report, component string) {
	t.Helper()
	other := map[string]string{"runner": "worker", "worker": "runner"}[component]
	want := fmt.Sprintf(`
# HELP n8n_worker_bottleneck 1 on the side that limits the worker (runner or worker).
# TYPE n8n_worker_bottleneck gauge
n8n_worker_bottleneck{component=%q,worker="fx-worker-1"} 1
n8n_worker_bottleneck{component=%q,worker="fx-worker-1"} 0
`, component, other)
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_worker_bottleneck"); err != nil {
		t.Error(err)
	}
}

// New gives the Redis sampler the probes' gate: on real Redis, readings
// taken while the runner is saturated yield no job time; once it has a
// free slot they do.
func TestSamplerGatedByProbes(t *testing.T) {
	rd := queuetest.Start(t)
	ctx := context.Background()
	probe := newFakeProbeStats(brokerprobe.Stats{Running: 2, InferredLimit: 2})
	s := queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute)
	New(Config{Sampler: s, Probes: labProbes(probe)})
	for _, id := range []string{"1", "2"} { // two jobs a live worker holds: listed and locked
		rd.Client.LPush(ctx, "bull:jobs:active", id)
		rd.Client.Set(ctx, "bull:jobs:"+id+":lock", "worker-token", 0)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 32; i++ {
		if i == 10 {
			if e, ok, _ := s.JobTime(); ok {
				t.Fatalf("estimate from readings behind a saturated runner: %+v", e)
			}
			probe.setRunning(1)
		}
		rd.Client.Incr(ctx, "bull:jobs:id")
		s.Step(ctx, t0.Add(time.Duration(i)*time.Second))
	}
	if e, ok, _ := s.JobTime(); !ok || e.JobTime != 2*time.Second {
		t.Fatalf("after the runner freed up: %+v ok %v, want 2 s", e, ok)
	}
}

// Beside a probe, jobs waiting in Redis do not spoil n8n's durations (its
// clock starts at worker pickup: a worker-bound queue is clean), but a
// probe with no runner connected does (tasks wait for one to come back).
func TestProbeGateForN8nDeltas(t *testing.T) {
	rd := queuetest.Start(t)
	rd.Client.LPush(context.Background(), "bull:jobs:wait", 1, 2, 3, 4, 5)
	probe := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", Running: 5, InferredLimit: 20,
		RecentTaskMean: time.Second, RecentTaskCount: 40})
	bodies := []string{histAt(100, 110, 2.5), histAt(110, 121, 2.5), histAt(120, 150, 5), histAt(120, 150, 5), histAt(130, 162, 2.5)}
	c := New(Config{N8nMetricsURL: serveInTurn(t, bodies...), Probes: labProbes(probe), Queue: queue.NewReader(rd.Client, "bull")})
	top := c.pair([]topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json"), labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 20)})
	start := time.Now().Add(time.Minute) // scrape times after any real-clock saturation mark
	steps := []struct {
		limit int // the probe's inferred limit: 0 = no runner connected
		at    time.Duration
		job   time.Duration
	}{
		{20, 0, time.Second},                            // the all-time mean is never used beside a probe
		{20, 10 * time.Second, 1100 * time.Millisecond}, // jobs wait in Redis, yet the delta is clean
		{0, 20 * time.Second, 1100 * time.Millisecond},  // no runner: the 2.9 s delta is left out
		{20, 30 * time.Second, 1100 * time.Millisecond}, // no new executions
		{20, 40 * time.Second, 1200 * time.Millisecond}, // runner back long enough: clean again
	}
	for n, st := range steps {
		probe.setLimit(st.limit)
		r := sampleAndGather(c, top, start.Add(st.at))
		if u := r.Used["job"]; u.Time != st.job {
			t.Fatalf("scrape %d: job stage used %+v, want %v\n%s", n+1, u, st.job, strings.Join(serviceLines(r), "\n"))
		}
	}
}
