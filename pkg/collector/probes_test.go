package collector

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeProbeStats stands in for a brokerprobe.Probe's figures. A fake is
// needed to inject an exact state (all runner slots busy, a given task
// mean) that a real probe shows only under a timed load on real n8n.
type fakeProbeStats struct {
	s       brokerprobe.Stats // fixed figures
	running atomic.Int64      // overrides s.Running; tests flip it
}

func newFakeProbeStats(s brokerprobe.Stats) *fakeProbeStats {
	f := &fakeProbeStats{s: s}
	f.running.Store(int64(s.Running))
	return f
}

func (f *fakeProbeStats) Stats() brokerprobe.Stats {
	s := f.s
	s.Running = int(f.running.Load())
	return s
}

func (f *fakeProbeStats) setRunning(n int) { f.running.Store(int64(n)) }

// labRunner is the lab's runner fixture re-pointed at a probe's port.
func labRunner(t *testing.T, name, brokerURI string, limit int) dockerstats.Container {
	c := fixtureContainer(t, "inspect-lab-runner-1-1.json")
	ep, err := dockerstats.InProcessProbe("parse", "127.0.0.1:1", brokerURI)
	if err != nil {
		t.Fatal(err)
	}
	c.ID, c.Name, c.Broker, c.RunnerLimit = name+"-id", name, ep.Routes[0].Upstream, limit
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
	cs := []dockerstats.Container{fixtureContainer(t, "inspect-lab-main.json"), fixtureContainer(t, "inspect-lab-worker-1.json"),
		labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 2), labRunner(t, "fx-runner-1-2", "http://127.0.0.1:5712", 3)}
	c := New(Config{Probes: labProbes(newFakeProbeStats(brokerprobe.Stats{}), newFakeProbeStats(brokerprobe.Stats{}))})
	r := &Report{Containers: cs, Topology: c.pair(cs)}
	c.evaluate(r)
	if len(r.Topology.Unpaired) != 0 || len(r.Topology.Workers) != 1 {
		t.Fatalf("topology: %+v", r.Topology)
	}
	var via []string
	for _, a := range r.Topology.Workers[0].Runners {
		via = append(via, a.Runner.Name+": "+a.Via)
	}
	want := "fx-runner-1-1: probe runner-1-1 (host-port) → host-port,fx-runner-1-2: probe runner-1-2 (host-port) → host-port"
	if got := strings.Join(via, ","); got != want {
		t.Errorf("pairing:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(Verdict(r), "\n"); !strings.Contains(got, "worker fx-worker-1: 15 slots, runners 2+3 → effective 5, runner-bound") {
		t.Errorf("verdict:\n%s", got)
	}
	if len(r.Containers) != 4 {
		t.Errorf("probe nodes must not become containers (memory rows, container metrics): %d", len(r.Containers))
	}

	// The exporter run as a container is discovered with the same listener
	// (fx-probe-1 on 127.0.0.1:5711): that probe is used, not a second node.
	cs = append(cs, fixtureContainer(t, "inspect-lab-probe-1.json"))
	top := c.pair(cs)
	if len(top.Probes) != 2 || top.Workers[0].Runners[0].Via != "probe fx-probe-1 (host-port) → host-port" {
		t.Errorf("with the probe container discovered: probes %d, runner 1 via %q", len(top.Probes), top.Workers[0].Runners[0].Via)
	}
}

// n8nHistory serves an exact sequence of n8n histogram scrapes, each a
// count and a sum; the last one repeats.
func n8nHistory(t *testing.T, scrapes ...[2]float64) string {
	var mu sync.Mutex
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := scrapes[min(i, len(scrapes)-1)]
		i++
		mu.Unlock()
		io.WriteString(w, hist(int(s[0]), s[1]))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// gatherJob runs the service-time part of Gather over a fixed topology.
func gatherJob(c *Collector, top dockerstats.Topology, queue map[string]int64) *Report {
	r := &Report{At: time.Now(), Topology: top, Queue: queue}
	c.measureJobTime(context.Background(), r)
	c.measureTaskTime(r)
	c.evaluate(r)
	return r
}

// Runner limit 2, worker 15, 1.06 s tasks, 20 VUs: jobs take ~10 s because
// they wait for a runner slot. With a probe, n8n's histogram is never read
// for the job stage: its durations are dated at completion, so even a delta
// taken while the runner has a free slot (1.25 s here, right after a
// saturated stretch) can hide waiting. The probe's task time stands in, and
// the worker stays runner-bound at 2/1.06 s.
func TestProbesKeepN8nOutOfJobTime(t *testing.T) {
	probe := newFakeProbeStats(brokerprobe.Stats{Name: "runner-1-1", Running: 2, InferredLimit: 2,
		RecentTaskMean: 1060 * time.Millisecond, RecentTaskCount: 40})
	url := n8nHistory(t, [2]float64{100, 1000}, [2]float64{110, 1100}, [2]float64{120, 1112.5}, [2]float64{130, 1212.5})
	c := New(Config{N8nMetricsURL: url, Probes: labProbes(probe)})
	cs := []dockerstats.Container{fixtureContainer(t, "inspect-lab-worker-1.json"), labRunner(t, "fx-runner-1-1", "http://127.0.0.1:5711", 2)}
	top := c.pair(cs)

	for scrape, running := range []int{2, 2, 1, 2} {
		probe.setRunning(running)
		r := gatherJob(c, top, nil)
		if u := r.Used["job"]; u.Source != "probe" || u.Time != 1060*time.Millisecond {
			t.Fatalf("scrape %d: job stage used %+v, want the probe's task time", scrape+1, u)
		}
		if w := r.Verdict.Workers[0]; w.Bottleneck != "runner" || fmt.Sprintf("%.2f", w.Ceiling) != "1.89" {
			t.Fatalf("scrape %d: %+v, want runner-bound at 1.89/s", scrape+1, w)
		}
		wantBottleneck(t, r, "runner")
		if !strings.Contains(strings.Join(serviceLines(r), "\n"), "job stage from n8n: not read while broker probes run") {
			t.Errorf("scrape %d: the landing page should say why n8n was left out: %v", scrape+1, serviceLines(r))
		}
	}
}

// Without probes today's behaviour stays (n8n's all-time mean at first),
// but a delta taken while jobs wait in Redis is left out.
func TestWaitingJobsGateN8nJobTime(t *testing.T) {
	url := n8nHistory(t, [2]float64{10, 10.5}, [2]float64{20, 110.5}, [2]float64{30, 130.5})
	c := New(Config{N8nMetricsURL: url})
	top := c.pair([]dockerstats.Container{fixtureContainer(t, "inspect-lab-worker-1.json"), fixtureContainer(t, "inspect-lab-runner-1-1.json")})
	steps := []struct {
		waiting int64
		want    time.Duration
	}{{0, 1050 * time.Millisecond}, {5, 1050 * time.Millisecond}, {0, 2 * time.Second}}
	for i, s := range steps {
		r := gatherJob(c, top, map[string]int64{"waiting": s.waiting})
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
		cs := []dockerstats.Container{fixtureContainer(t, "inspect-lab-worker-1.json"), labRunner(t, "r", "http://127.0.0.1:5689", tc.limit)}
		r := &Report{Topology: c.pair(cs)}
		if tc.job > 0 {
			r.Measured = []ServiceTime{{Stage: "job", Source: "redis", Time: tc.job}, {Stage: "task", Source: "probe", Time: tc.task}}
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
	rd.Client.LPush(ctx, "bull:jobs:active", "1", "2")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 20; i++ {
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
