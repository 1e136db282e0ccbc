package kube_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// The exporter as up.sh deploys it with deploy/helm/n8n-ceiling, read from
// the host through its Service.

const (
	namespace = "n8n"
	// scrapeInterval is the Prometheus scrape interval these tests assume
	// (the chart's PodMonitor default): a change in the cluster must show
	// on the exporter within one.
	scrapeInterval = 15 * time.Second
	// ceilingTolerance bounds how far a saturating closed loop's throughput
	// may land from the published ceiling, as a fraction of the ceiling.
	ceilingTolerance = 0.05
	// withoutRunnerSecret is the Secret the lab chart's worker pods without
	// runner take N8N_CONCURRENCY_PRODUCTION_LIMIT from
	// (KUBE_CONCURRENCY_FROM_SECRET=1).
	withoutRunnerSecret = namespace + "/n8n-settings"
)

// TestExporterShowsTwoRunnerBoundWorkers: two worker pods of concurrency 6,
// each with a runner sidecar of limit 4, are two workers named
// <namespace>/<pod>, each runner-bound at 4, 8 in all, and the task stage
// is timed by the probe sidecars. /verdict names main as keeping no
// completed job in Redis.
func TestExporterShowsTwoRunnerBoundWorkers(t *testing.T) {
	c, eps := needCluster(t, baseShape)
	metrics, hook := endpoint(t, eps, "exporter-metrics"), endpoint(t, eps, "webhook")
	ctx := context.Background()
	want := map[string]bool{}
	for _, p := range runningPods(t, c, "worker") {
		want[namespace+"/"+p.Name] = true
	}
	if len(want) != 2 {
		t.Fatalf("worker pods %v, want 2", want)
	}
	// The exporter times tasks by the difference of the probes' histograms
	// between its scrapes: one scrape before the tasks, then some tasks.
	readExporter(t, metrics)
	if res := lab.ClosedLoop(ctx, hook, lab.BenchBody(1000, 0), 8, 0, 4*time.Second); res.Failed > 0 || res.OK == 0 {
		t.Fatalf("warm-up: %d ok, %d failed, e.g. %v", res.OK, res.Failed, res.Errors)
	}
	var s *snapshot.Snapshot
	err := lab.Until(ctx, time.Minute, time.Second, func(ctx context.Context) error {
		var err error
		if s, err = (&snapshot.Reader{URL: metrics}).Read(ctx); err != nil {
			return err
		}
		if s.Used["task"] != "probe" {
			return fmt.Errorf("the task stage uses %q, want probe (service times %+v)", s.Used["task"], s.Service)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workers) != 2 {
		t.Fatalf("exporter shows %d workers, want 2: %+v", len(s.Workers), s.Workers)
	}
	for _, w := range s.Workers {
		if !want[w.Name] {
			t.Errorf("worker %q is none of the pods %v", w.Name, slices.Sorted(maps.Keys(want)))
		}
		if w.Concurrency != 6 || w.Capacity != (snapshot.Sample{Value: 4, OK: true}) ||
			w.Effective != (snapshot.Sample{Value: 4, OK: true}) || w.Bottleneck != "runner" {
			t.Errorf("worker %s: concurrency %d, capacity %+v, effective %+v, bottleneck %q; want 6, 4, 4, runner",
				w.Name, w.Concurrency, w.Capacity, w.Effective, w.Bottleneck)
		}
		if len(w.Runners) != 1 || w.Runners[0].Name != w.Name+"/task-runner" || w.Runners[0].Limit != 4 {
			t.Errorf("worker %s: runners %+v, want its pod's task-runner with limit 4", w.Name, w.Runners)
		}
	}
	if s.Cluster.Effective != (snapshot.Sample{Value: 8, OK: true}) {
		t.Errorf("cluster effective %+v, want 8", s.Cluster.Effective)
	}
	task, ok := serviceTime(s, "task", "probe")
	t.Logf("task time from the probes: %.3f s", task)
	// A Code node that sleeps 1 s holds its runner slot about that long.
	if !ok || task < 0.9 || task > 1.5 {
		t.Errorf("n8n_service_time_seconds{stage=task,source=probe} = %v (present %v), want about 1 s", task, ok)
	}
	// The lab chart, as the official one, leaves main's
	// N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED at n8n's 0.
	mains := runningPods(t, c, "main")
	if len(mains) != 1 {
		t.Fatalf("%d running main pods, want 1", len(mains))
	}
	keep := "main " + namespace + "/" + mains[0].Name + " (queue mode) keeps no completed job in Redis"
	if page := exporterPage(t, metrics, "/verdict"); !strings.Contains(page, keep) {
		t.Errorf("/verdict lacks %q:\n%s", keep, page)
	}
}

// TestLoadLandsOnThePublishedCeiling: a closed loop of 16 VUs through the
// webhook (more than the 12 worker slots and the 8 runner slots), with 1 s
// tasks, completes within ceilingTolerance of the ceiling the exporter
// publishes after it; then the containers' CPU and memory read from the
// node's cgroups hold (checkContainerCgroups).
func TestLoadLandsOnThePublishedCeiling(t *testing.T) {
	c, eps := needCluster(t, baseShape)
	metrics, hook := endpoint(t, eps, "exporter-metrics"), endpoint(t, eps, "webhook")
	check, err := loadgen.ParseFieldCheck("ok==true")
	if err != nil {
		t.Fatal(err)
	}
	sweep := loadgen.Sweep{
		Plan: loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{16}), Warmup: 10 * time.Second, Step: 40 * time.Second},
		Target: &loadgen.Target{URLs: []string{hook}, Method: http.MethodPost, Body: []byte(`{"sleep_ms":1000}`),
			ContentType: "application/json", Checks: loadgen.Checks{Fields: []loadgen.FieldCheck{check}},
			Client: loadgen.NewClient(time.Minute, 16)},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := sweep.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 1 || res.Interrupted {
		t.Fatalf("the sweep ran %d steps (interrupted %v)", len(res.Steps), res.Interrupted)
	}
	f := res.Steps[0].Figures
	if f.PassRate != 1 {
		t.Errorf("pass rate %.3f, errors %v, e.g. %v", f.PassRate, f.Errors, f.ErrorExamples)
	}
	s := readExporter(t, metrics)
	if !s.Cluster.Ceiling.OK {
		t.Fatalf("no n8n_cluster_ceiling_executions_per_second after the load (service times %+v)", s.Service)
	}
	ceiling := s.Cluster.Ceiling.Value
	off := (f.Throughput - ceiling) / ceiling
	t.Logf("16 VUs: %.2f/s over %.0f s (%d requests, p50 %.2f s); published ceiling %.2f/s, bound by %s; %+.1f%%",
		f.Throughput, f.WindowSeconds, f.Requests, f.Latency.P50, ceiling, binding(s), 100*off)
	if math.Abs(off) > ceilingTolerance {
		t.Errorf("throughput %.2f/s is %+.1f%% from the published ceiling %.2f/s, want within ±%.0f%%",
			f.Throughput, 100*off, ceiling, 100*ceilingTolerance)
	}
	checkContainerCgroups(t, c, metrics)
}

// TestScalingShowsWithinOneScrapeInterval: the worker Deployment goes from
// 1 pod to 2 (up.sh, which helm-upgrades its replicas); the exporter shows
// the second worker within scrapeInterval of its pod turning Running.
func TestScalingShowsWithinOneScrapeInterval(t *testing.T) {
	c, eps := needCluster(t, shape("KUBE_WORKERS", "1"))
	metrics := endpoint(t, eps, "exporter-metrics")
	if n := probeLines(eps); n != 1 {
		t.Errorf("KUBE_WORKERS=1: %d probe-metrics lines", n)
	}
	one := runningPods(t, c, "worker")
	if len(one) != 1 {
		t.Fatalf("KUBE_WORKERS=1: %d running worker pods", len(one))
	}
	ctx := context.Background()
	err := lab.Until(ctx, scrapeInterval, 500*time.Millisecond, func(ctx context.Context) error {
		return showsWorkers(ctx, metrics, namespace+"/"+one[0].Name)
	})
	if err != nil {
		t.Fatal(err)
	}

	type upResult struct {
		eps endpoints.Endpoints
		err error
	}
	done := make(chan upResult, 1)
	start := time.Now()
	go func() {
		eps, err := kube.Up(ctx, baseShape, lines(func(s string) { t.Log(s) }))
		done <- upResult{eps, err}
	}()
	running, seen := watchScaleUp(t, c, metrics, 2, 5*time.Minute)
	r := <-done
	if r.err != nil {
		t.Fatalf("up.sh %v: %v", baseShape, r.err)
	}
	c.reshaped(baseShape, r.eps)
	t.Logf("TIMING up %v: %.1fs; second pod Running after %.1fs, on the exporter %.1fs later",
		baseShape, time.Since(start).Seconds(), running.Sub(start).Seconds(), seen.Sub(running).Seconds())
	if lag := seen.Sub(running); lag > scrapeInterval {
		t.Errorf("the exporter showed the second worker %v after its pod was Running, want within %v", lag, scrapeInterval)
	}
	if n := probeLines(r.eps); n != 2 {
		t.Errorf("KUBE_WORKERS=2: %d probe-metrics lines", n)
	}
}

// watchScaleUp polls the API and the exporter until n worker pods are
// Running and the exporter shows exactly those n workers, and says when
// each was first seen.
func watchScaleUp(t *testing.T, c *labCluster, metrics string, n int, timeout time.Duration) (running, seen time.Time) {
	t.Helper()
	ctx := context.Background()
	var names []string
	for deadline := time.Now().Add(timeout); running.IsZero() || seen.IsZero(); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %d pods Running since %v, exporter since %v", timeout, len(names), running, seen)
		}
		now := time.Now()
		if running.IsZero() {
			pods, err := kube.Pods(ctx, c.admin, c.api, namespace, "app.kubernetes.io/component=worker")
			if err != nil {
				t.Fatal(err)
			}
			names = names[:0]
			for _, p := range pods {
				if p.Phase == "Running" {
					names = append(names, namespace+"/"+p.Name)
				}
			}
			if len(names) == n {
				running = now
			}
		}
		if seen.IsZero() && showsWorkers(ctx, metrics, names...) == nil && len(names) == n {
			seen = now
		}
	}
	return running, seen
}

// TestWorkerWithoutRunnerIsNamedAndAlerts: a worker pod with no runner
// sidecar is named on / and has runner capacity 0, and the exporter's live
// series make N8nWorkerWithoutRunner fire under promtool, which they do
// not while every worker has its runner.
func TestWorkerWithoutRunnerIsNamedAndAlerts(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	_, eps := needCluster(t, baseShape)
	metrics := endpoint(t, eps, "exporter-metrics")
	healthy := scrapeText(t, metrics)
	if !bytes.Contains(healthy, []byte("n8n_worker_runner_capacity{")) {
		t.Fatalf("the healthy capture holds no n8n_worker_runner_capacity:\n%s", healthy)
	}
	ruleTest(t, promtool, metrics, healthy)

	c, eps := needCluster(t, shape("KUBE_WORKERS_WITHOUT_RUNNER", "1"))
	metrics = endpoint(t, eps, "exporter-metrics")
	bare := runningPods(t, c, "worker-without-runner")
	if len(bare) != 1 {
		t.Fatalf("%d running worker pods without runner, want 1", len(bare))
	}
	name := namespace + "/" + bare[0].Name
	var s *snapshot.Snapshot
	err := lab.Until(context.Background(), scrapeInterval, time.Second, func(ctx context.Context) error {
		var err error
		if s, err = (&snapshot.Reader{URL: metrics}).Read(ctx); err != nil {
			return err
		}
		if _, ok := worker(s, name); !ok {
			return fmt.Errorf("the exporter does not show worker %s: %+v", name, s.Workers)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := worker(s, name)
	if w.Capacity != (snapshot.Sample{Value: 0, OK: true}) || len(w.Runners) != 0 || w.Concurrency != 6 {
		t.Errorf("worker %s: capacity %+v, runners %+v, concurrency %d; want capacity 0, none, 6", name, w.Capacity, w.Runners, w.Concurrency)
	}
	if s.Cluster.WorkersWithoutRunner != 1 || s.Cluster.Effective != (snapshot.Sample{Value: 8, OK: true}) {
		t.Errorf("cluster: %v workers without runner, effective %+v; want 1 and 8", s.Cluster.WorkersWithoutRunner, s.Cluster.Effective)
	}
	if page := exporterPage(t, metrics, "/"); !strings.Contains(page, "worker "+name+" has no runner") {
		t.Errorf("/ does not name worker %s as without runner:\n%s", name, page)
	}
	ruleTest(t, promtool, metrics, scrapeText(t, metrics), map[string]string{"worker": name})
}

// ruleTest writes a promtool rule test from a capture of the exporter at
// metrics, scraped every scrapeInterval for 5 minutes: exactly the
// N8nWorkerWithoutRunner alerts for the workers given fire at 2 minutes
// (the rule waits 1).
func ruleTest(t *testing.T, promtool, metrics string, capture []byte, workers ...map[string]string) {
	t.Helper()
	u, err := url.Parse(metrics)
	if err != nil {
		t.Fatal(err)
	}
	target := map[string]string{"job": "n8n-ceiling", "instance": u.Host}
	var want []map[string]string
	for _, w := range workers {
		l := maps.Clone(target)
		maps.Copy(l, w)
		want = append(want, l)
	}
	rules, err := filepath.Abs("../../compose/prometheus/rules/n8n-ceiling.yml")
	if err != nil {
		t.Fatal(err)
	}
	rt := kube.RuleTest{RuleFile: rules, Interval: scrapeInterval, Span: 5 * time.Minute, Target: target,
		Alerts: []kube.AlertCheck{{Alert: "N8nWorkerWithoutRunner", EvalTime: 2 * time.Minute, Want: want}}}
	var buf bytes.Buffer
	if err := rt.Write(&buf, bytes.NewReader(capture)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "capture_test.yml")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := kube.PromtoolTestRules(context.Background(), promtool, file)
	if err != nil {
		t.Errorf("N8nWorkerWithoutRunner on the live capture, want firing for %v: %v\n%s", workers, err, out)
		return
	}
	t.Logf("promtool over %d live series: N8nWorkerWithoutRunner fires for exactly %d worker(s) %v",
		strings.Count(buf.String(), "- series:"), len(workers), workers)
}

// TestExporterReadsNoSecret: the ServiceAccount the chart renders may not
// get, list or watch Secrets (the apiserver says so, and refuses it), the
// exporter logs no refused request, a whitelisted setting taken from a
// Secret shows as unknown with the reason on /, and no secret value of the
// lab reaches the exporter's pages or log.
func TestExporterReadsNoSecret(t *testing.T) {
	c, eps := needCluster(t, shape("KUBE_WORKERS_WITHOUT_RUNNER", "1", "KUBE_CONCURRENCY_FROM_SECRET", "1"))
	metrics := endpoint(t, eps, "exporter-metrics")
	ctx := context.Background()
	t.Run("RBAC", func(t *testing.T) { checkSecretsDenied(t, c) })

	t.Run("a setting from a Secret is unknown", func(t *testing.T) {
		bare := runningPods(t, c, "worker-without-runner")
		if len(bare) != 1 {
			t.Fatalf("%d running worker pods without runner, want 1", len(bare))
		}
		name := namespace + "/" + bare[0].Name
		wants := []string{
			name + "/n8n: N8N_CONCURRENCY_PRODUCTION_LIMIT cannot be read (from Secret " + withoutRunnerSecret + ")",
			"no verdict: worker " + name + ": concurrency unknown (N8N_CONCURRENCY_PRODUCTION_LIMIT: from Secret " + withoutRunnerSecret + ")",
		}
		err := lab.Until(ctx, scrapeInterval, time.Second, func(context.Context) error {
			page := exporterPage(t, metrics, "/")
			for _, w := range wants {
				if !strings.Contains(page, w) {
					return fmt.Errorf("/ lacks %q:\n%s", w, page)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		if w, ok := worker(readExporter(t, metrics), name); ok {
			t.Errorf("worker %s has a published concurrency (%d) read from a Secret", name, w.Concurrency)
		}
	})

	t.Run("no secret value on the pages or in the log", func(t *testing.T) {
		kubectl := filepath.Join(cacheDir(), "bin", "kubectl")
		logs, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", eps["kubeconfig"], "-n", namespace,
			"logs", "deploy/n8n-ceiling").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl logs: %v %s", err, logs)
		}
		if bytes.Contains(bytes.ToLower(logs), []byte("forbidden")) {
			t.Errorf("the exporter made a request its RBAC refuses:\n%s", logs)
		}
		texts := map[string]string{"log": string(logs), "/metrics": string(scrapeText(t, metrics))}
		for _, p := range []string{"/", "/verdict"} {
			texts[p] = exporterPage(t, metrics, p)
		}
		for _, secret := range secretValues(t) {
			for where, text := range texts {
				if strings.Contains(text, secret) {
					t.Errorf("a secret value of the lab is in the exporter's %s", where)
				}
			}
		}
	})
}

// checkSecretsDenied: the ServiceAccount of the exporter's Deployment (the
// chart's own) may read pods, ConfigMaps and EndpointSlices and no Secret
// (checkAccess), and impersonated it gets 403 listing Secrets and 200
// listing pods.
func checkSecretsDenied(t *testing.T, c *labCluster) {
	t.Helper()
	ctx := context.Background()
	var dep struct {
		Spec struct {
			Template struct {
				Spec struct {
					ServiceAccountName string `json:"serviceAccountName"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := kube.GetJSON(ctx, c.admin, c.api+"/apis/apps/v1/namespaces/"+namespace+"/deployments/n8n-ceiling", &dep); err != nil {
		t.Fatal(err)
	}
	sa := dep.Spec.Template.Spec.ServiceAccountName
	if sa == "" || sa == "default" {
		t.Fatalf("the exporter runs as ServiceAccount %q, want the chart's own", sa)
	}
	user := kube.ServiceAccountUser(namespace, sa)
	checkAccess(t, c, user)
	as := kube.Impersonating(c.admin, user)
	if err := kube.GetJSON(ctx, as, c.api+"/api/v1/namespaces/"+namespace+"/secrets", &struct{}{}); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("listing Secrets as %s: %v, want HTTP 403", user, err)
	}
	if err := kube.GetJSON(ctx, as, c.api+"/api/v1/namespaces/"+namespace+"/pods", &struct{}{}); err != nil {
		t.Errorf("listing pods as %s: %v", user, err)
	}
}

// checkAccess asks the apiserver what user (with a service account's
// groups) may do: get, list and watch pods, configmaps and endpointslices
// in the watched namespace, and nothing on Secrets, there or anywhere.
func checkAccess(t *testing.T, c *labCluster, user string) {
	t.Helper()
	groups := kube.ServiceAccountGroups(namespace)
	for _, verb := range []string{"get", "list", "watch"} {
		for _, a := range []struct {
			access kube.Access
			want   bool
		}{
			{kube.Access{Verb: verb, Resource: "secrets", Namespace: namespace}, false},
			{kube.Access{Verb: verb, Resource: "secrets"}, false},
			{kube.Access{Verb: verb, Resource: "pods", Namespace: namespace}, true},
			{kube.Access{Verb: verb, Resource: "configmaps", Namespace: namespace}, true},
			{kube.Access{Verb: verb, Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: namespace}, true},
		} {
			got, err := kube.Allowed(context.Background(), c.admin, c.api, user, groups, a.access)
			if err != nil {
				t.Fatal(err)
			}
			if got != a.want {
				t.Errorf("%s may %+v: %v, want %v", user, a.access, got, a.want)
			}
		}
	}
}

// --- reading the exporter and the cluster ---------------------------------------

func endpoint(t *testing.T, eps endpoints.Endpoints, name string) string {
	t.Helper()
	v, err := eps.Must(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readExporter(t *testing.T, metrics string) *snapshot.Snapshot {
	t.Helper()
	s, err := (&snapshot.Reader{URL: metrics}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func scrapeText(t *testing.T, metrics string) []byte {
	t.Helper()
	return []byte(get(t, metrics))
}

// exporterPage scrapes /metrics first, as Prometheus would, so that the
// page (/, /verdict: the last scrape's report) shows the cluster as it is
// now.
func exporterPage(t *testing.T, metrics, path string) string {
	t.Helper()
	readExporter(t, metrics)
	return get(t, strings.TrimSuffix(metrics, "/metrics")+path)
}

func get(t *testing.T, u string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d, %v", u, res.StatusCode, err)
	}
	return string(body)
}

// showsWorkers is nil when the exporter shows exactly the named workers.
func showsWorkers(ctx context.Context, metrics string, names ...string) error {
	s, err := (&snapshot.Reader{URL: metrics}).Read(ctx)
	if err != nil {
		return err
	}
	var got []string
	for _, w := range s.Workers {
		got = append(got, w.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(names))) {
		return fmt.Errorf("the exporter shows workers %v, want %v", got, names)
	}
	return nil
}

// runningPods lists the Running pods of one component of the lab chart.
func runningPods(t *testing.T, c *labCluster, component string) []kube.Pod {
	t.Helper()
	pods, err := kube.Pods(context.Background(), c.admin, c.api, namespace, "app.kubernetes.io/component="+component)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(pods, func(p kube.Pod) bool { return p.Phase != "Running" })
}

func worker(s *snapshot.Snapshot, name string) (snapshot.Worker, bool) {
	for _, w := range s.Workers {
		if w.Name == name {
			return w, true
		}
	}
	return snapshot.Worker{}, false
}

func serviceTime(s *snapshot.Snapshot, stage, source string) (float64, bool) {
	for _, st := range s.Service {
		if st.Stage == stage && st.Source == source {
			return st.Seconds, true
		}
	}
	return 0, false
}

// binding names the resources flagged as the cluster's bottleneck.
func binding(s *snapshot.Snapshot) string {
	var out []string
	for _, r := range s.Resources {
		if r.Binding {
			out = append(out, r.Name)
		}
	}
	return strings.Join(out, ", ")
}

func probeLines(eps endpoints.Endpoints) int {
	n := 0
	for name := range eps {
		if strings.HasPrefix(name, "probe-metrics-") {
			n++
		}
	}
	return n
}
