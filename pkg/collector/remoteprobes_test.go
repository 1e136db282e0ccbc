package collector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/kube"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The parser reads what a real broker probe serves (an idle one here), so
// a renamed probe metric fails this test.
func TestParseRealProbeMetrics(t *testing.T) {
	p, err := brokerprobe.New(brokerprobe.Config{Name: "n8n-worker-a", Listen: "127.0.0.1:0", Upstream: "http://127.0.0.1:5679"},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseProbeMetrics(scrape(t, p))
	if err != nil || len(got) != 1 || got[0].Name != "n8n-worker-a" || got[0].InferredLimit != 0 || got[0].TaskCount != 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// scrape is c's /metrics as an HTTP scrape gets it.
func scrape(t *testing.T, c prometheus.Collector) []byte {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// probeText is a probe sidecar's /metrics with the given figures.
func probeText(name string, running, limit int, count int, sum float64) string {
	return fmt.Sprintf(`# TYPE n8n_runner_tasks_running gauge
n8n_runner_tasks_running{probe=%[1]q} %[2]d
# TYPE n8n_runner_inferred_max_concurrency gauge
n8n_runner_inferred_max_concurrency{probe=%[1]q} %[3]d
# TYPE n8n_runner_connections gauge
n8n_runner_connections{kind="runner",probe=%[1]q} 1
n8n_runner_connections{kind="launcher",probe=%[1]q} 0
# TYPE n8n_runner_tasks_total counter
n8n_runner_tasks_total{outcome="done",probe=%[1]q} %[4]d
n8n_runner_tasks_total{outcome="error",probe=%[1]q} 1
# TYPE n8n_runner_task_duration_seconds histogram
n8n_runner_task_duration_seconds_bucket{probe=%[1]q,le="1"} 0
n8n_runner_task_duration_seconds_bucket{probe=%[1]q,le="+Inf"} %[4]d
n8n_runner_task_duration_seconds_sum{probe=%[1]q} %[5]g
n8n_runner_task_duration_seconds_count{probe=%[1]q} %[4]d
# TYPE n8n_runner_task_handoff_seconds histogram
n8n_runner_task_handoff_seconds_bucket{probe=%[1]q,le="+Inf"} %[4]d
n8n_runner_task_handoff_seconds_sum{probe=%[1]q} %[6]g
n8n_runner_task_handoff_seconds_count{probe=%[1]q} %[4]d
`, name, running, limit, count, sum, 0.02*float64(count))
}

// translated is the Kubernetes translation over objects held in memory:
// kube.Translate, without informers.
type translated struct{ objs kube.Objects }

func (t translated) Discover(ctx context.Context) ([]topology.Process, error) {
	ps, _, err := t.DiscoverAll(ctx)
	return ps, err
}

func (t translated) DiscoverAll(context.Context) ([]topology.Process, []topology.NotCounted, error) {
	ps, nc := kube.Translate(t.objs)
	return ps, nc, nil
}

// workerPod is the kube lab's worker pod on loopback: worker 15, a runner
// of limit 5 dialling the probe sidecar, whose /metrics is served at
// metrics (host:port).
func workerPod(name, metrics string) *corev1.Pod {
	env := func(kv ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for i := 0; i < len(kv); i += 2 {
			out = append(out, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	cs := []corev1.Container{
		{Name: "n8n", Command: []string{"/opt/node/bin/node", "/opt/n8n/bin/n8n"}, Args: []string{"worker", "--concurrency=15"},
			Env: env("N8N_RUNNERS_MODE", "external")},
		{Name: "task-runner", Command: []string{"/bin/sh", "/opt/lab/runner-loop.sh", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"},
			Env: env("N8N_RUNNERS_TASK_BROKER_URI", "http://localhost:5680", "N8N_RUNNERS_MAX_CONCURRENCY", "5")},
		{Name: "probe", Image: "localhost/n8n-ceiling/exporter:dev",
			Env: env("EXPORTER_DISCOVERY", "false", "EXPORTER_LISTEN", metrics, "PROBE_LISTEN", ":5680", "PROBE_UPSTREAM", "http://localhost:5679")},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "n8n", Name: name}, Spec: corev1.PodSpec{Containers: cs},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}}}}
	for _, c := range cs {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses,
			corev1.ContainerStatus{Name: c.Name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return pod
}

func hostPort(t *testing.T, url string) string {
	t.Helper()
	h := strings.TrimPrefix(url, "http://")
	if _, _, err := net.SplitHostPort(h); err != nil {
		t.Fatal(err)
	}
	return h
}

// A probe sidecar found through the pod spec feeds the task stage like an
// in-process probe: the mean of the tasks between two background reads
// (never a scrape's), with a
// "probes" source; a pending pod is listed, not counted; every container
// has its info series.
func TestRemoteProbeFeedsTaskTime(t *testing.T) {
	url := serveInTurn(t, probeText("w-a", 2, 5, 10, 20), probeText("w-a", 5, 5, 30, 50))
	pending := workerPod("w-pending", "127.0.0.1:1")
	pending.Status.Phase = corev1.PodPending
	c := New(Config{Platform: translated{kube.Objects{Pods: []*corev1.Pod{workerPod("w-a", hostPort(t, url)), pending},
		ConfigMaps: func(string, string) *corev1.ConfigMap { return nil }}}, PlatformName: "kubernetes", ScrapeProbes: true})
	r := readProbes(c)
	if st := sourceOf(r, "probes"); st == nil || !st.Up {
		t.Fatalf("probes source: %+v", r.Sources)
	}
	if len(r.Measured) != 0 {
		t.Errorf("first sight gives no task mean: %+v", r.Measured)
	}
	for range 3 { // scrapes read the sidecars' figures, and do not read them again
		r = c.Gather(context.Background())
	}
	if len(r.Measured) != 0 {
		t.Errorf("scrapes read the sidecars: %+v", r.Measured)
	}
	r = readProbes(c)
	if len(r.Measured) != 1 || r.Measured[0].Source != "probe" || r.Measured[0].Time != 1500*time.Millisecond {
		t.Fatalf("measured %+v (no Redis tells waiting tasks, so no hand-off in it)", r.Measured)
	}
	if s := c.remote.stats()[0].stats.Stats(); (s.RecentHandoffMean-20*time.Millisecond).Abs() > time.Microsecond || s.RecentHandoffCount != 20 {
		t.Errorf("hand-off %v over %d, want 20 ms over the 20 tasks between the reads", s.RecentHandoffMean, s.RecentHandoffCount)
	}
	if got := strings.Join(Verdict(r), "\n"); !strings.Contains(got, "worker n8n/w-a: 15 slots, runners 5 → effective 5, runner-bound") {
		t.Errorf("verdict:\n%s", got)
	}
	if !c.runnerSaturated() {
		t.Error("5 of 5 running must count as saturated")
	}
	if len(r.NotCounted) != 1 || r.NotCounted[0] != (topology.NotCounted{Name: "n8n/w-pending", Phase: "Pending"}) {
		t.Errorf("not counted %+v", r.NotCounted)
	}
	var page strings.Builder
	if err := RenderLanding(&page, r); err != nil || !strings.Contains(page.String(), "<li>n8n/w-pending: Pending</li>") {
		t.Errorf("landing lacks the pending pod (%v)", err)
	}
	compareInfo(t, r, `
n8n_container_info{container="n8n",namespace="n8n",pod="w-a",role="worker"} 1
n8n_container_info{container="probe",namespace="n8n",pod="w-a",role="probe"} 1
n8n_container_info{container="task-runner",namespace="n8n",pod="w-a",role="runner"} 1
`)
}

// On Docker the info series carries the container name alone.
func TestContainerInfoDocker(t *testing.T) {
	compareInfo(t, labReport(t), `
n8n_container_info{container="fx-main",namespace="",pod="",role="main"} 1
n8n_container_info{container="fx-probe-1",namespace="",pod="",role="probe"} 1
n8n_container_info{container="fx-runner-1-1",namespace="",pod="",role="runner"} 1
n8n_container_info{container="fx-worker-1",namespace="",pod="",role="worker"} 1
n8n_container_info{container="fx-worker-2",namespace="",pod="",role="worker"} 1
`)
}

// compareInfo checks r's n8n_container_info series.
func compareInfo(t *testing.T, r *Report, series string) {
	t.Helper()
	want := "\n# HELP n8n_container_info 1 for every n8n container, with its role. In Kubernetes namespace, pod and container are the labels of the kubelet's cAdvisor series (container_memory_working_set_bytes), so they join on them; in Docker namespace and pod are empty and container is the container name.\n# TYPE n8n_container_info gauge\n" + strings.TrimPrefix(series, "\n")
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_container_info"); err != nil {
		t.Error(err)
	}
}

// A hostile or broken sidecar answer is an error on the probes source or
// a bounded figure, never a crash, a hang or a huge read.
func TestRemoteProbeBadAnswers(t *testing.T) {
	huge := strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 1100)
	cases := []struct {
		name, body string
		wantErr    string
	}{
		{"over the size limit", huge, "over 1048576 bytes"},
		{"not metrics", "garbage{{{\n", "probe n8n/w-a/probe"},
		{"not a probe", "# TYPE up gauge\nup 1\n", "is this a broker probe"},
	}
	for _, tc := range cases {
		url := serveInTurn(t, tc.body)
		c := New(Config{Platform: translated{kube.Objects{Pods: []*corev1.Pod{workerPod("w-a", hostPort(t, url))},
			ConfigMaps: func(string, string) *corev1.ConfigMap { return nil }}}, ScrapeProbes: true})
		r := readProbes(c)
		if st := sourceOf(r, "probes"); st == nil || st.Up || !strings.Contains(st.Err, tc.wantErr) {
			t.Errorf("%s: probes source %+v", tc.name, st)
		}
	}
	got, err := parseProbeMetrics([]byte(strings.ReplaceAll(probeText("x", 0, 0, 0, 0), " 0\n", " NaN\n") +
		"# TYPE n8n_runner_tasks_running_extra gauge\n"))
	if err != nil || got[0].Running != 0 {
		t.Errorf("NaN gauges: %+v %v", got, err)
	}
	got, _ = parseProbeMetrics([]byte(probeText("x", -3, 1e9, 5, -1)))
	if got[0].Running != 0 || got[0].InferredLimit != 1e6 || got[0].TaskSum != 0 {
		t.Errorf("out-of-range figures: %+v", got[0])
	}
}

// Read a minute apart, the task mean spans the samples of the last five
// minutes; a count that falls (the probe restarted) starts again from zero.
func TestRemoteProbeTaskWindow(t *testing.T) {
	rp := &remoteProbes{}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at    time.Duration
		sum   float64
		count uint64
		mean  time.Duration
		tasks int
	}{
		{0, 10, 10, 0, 0},
		{time.Minute, 30, 20, 2 * time.Second, 10},
		{6 * time.Minute, 50, 30, 2 * time.Second, 10}, // the first sample has left the window
		{7 * time.Minute, 4, 2, 2 * time.Second, 2},    // restart: from zero
	}
	for i, s := range steps {
		mean, tasks := rp.recent("p", s.sum, s.count, t0.Add(s.at))
		if mean != s.mean || tasks != s.tasks {
			t.Errorf("step %d: mean %v over %d, want %v over %d", i, mean, tasks, s.mean, s.tasks)
		}
	}
}

// With tasks ended in the last 30 s the mean is theirs: 1 s tasks for
// 100 s, then one 15 s task every 10 s, read every 10 s. Once the 15 s
// tasks fill the 30 s the mean is 15 s; after a quiet minute it is the
// five minutes' blend again.
func TestRemoteProbeTaskMeanFollowsTheWorkload(t *testing.T) {
	rp := &remoteProbes{}
	t0 := time.Unix(1000, 0)
	read := func(at int, sum float64, count uint64) (time.Duration, int) {
		return rp.recent("p", sum, count, t0.Add(time.Duration(at)*time.Second))
	}
	for at := 0; at <= 100; at += 10 {
		read(at, float64(at), uint64(at))
	}
	for i, at := range []int{110, 120, 130} {
		read(at, 100+15*float64(i+1), uint64(101+i))
	}
	if mean, n := read(140, 160, 104); mean != 15*time.Second || n != 3 {
		t.Errorf("after the switch: %v over %d, want 15s over the 3 tasks since the read 30 s ago", mean, n)
	}
	if mean, n := read(200, 160, 104); n != 104 || math.Abs(mean.Seconds()-160.0/104) > 1e-6 {
		t.Errorf("quiet for a minute: %v over %d, want the blend of the last five minutes", mean, n)
	}
}

// readProbes is one background discovery and one read of the sidecars,
// then a scrape's gather.
func readProbes(c *Collector) *Report {
	ctx := context.Background()
	c.tellSampler(ctx)
	c.remote.sample(ctx, time.Second, time.Now())
	return c.Gather(ctx)
}

func sourceOf(r *Report, name string) *SourceResult {
	for i := range r.Sources {
		if r.Sources[i].Name == name {
			return &r.Sources[i]
		}
	}
	return nil
}

// Given the exporter's demand window (15 s), the task mean holds the
// tasks of those 15 s alone: 1 s tasks up to 100 s, then 10 ms ones,
// read every 5 s.
func TestRemoteProbeTaskMeanUsesTheDemandWindow(t *testing.T) {
	rp := &remoteProbes{fresh: 15 * time.Second}
	t0 := time.Unix(1000, 0)
	read := func(at int, sum float64, count uint64) (time.Duration, int) {
		return rp.recent("p", sum, count, t0.Add(time.Duration(at)*time.Second))
	}
	for at := 0; at <= 100; at += 5 {
		read(at, float64(at), uint64(at))
	}
	for i, at := range []int{105, 110} {
		read(at, 100+0.5*float64(i+1), uint64(150+50*i))
	}
	if mean, n := read(115, 101.5, 250); mean != 10*time.Millisecond || n != 150 {
		t.Errorf("15 s after the switch: %v over %d, want 10ms over the 150 tasks since the read 15 s ago", mean, n)
	}
}
