package kube_test

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// declaredShape: n8n's capacity settings come from one Secret per
// workload by envFrom, which the exporter may not read, and the pods
// declare them as n8n-ceiling.io/<VAR> annotations.
var declaredShape = shape("KUBE_SETTINGS", "secret", "KUBE_DECLARE", "1")

// capacityKeys are the settings the lab chart moves out of its ConfigMaps
// with KUBE_SETTINGS=secret.
var capacityKeys = []string{"EXECUTIONS_MODE", "N8N_RUNNERS_MODE", "N8N_RUNNERS_TASK_REQUEST_TIMEOUT",
	"OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS", "N8N_CONCURRENCY_PRODUCTION_LIMIT", "N8N_RUNNERS_MAX_CONCURRENCY"}

// TestDeclaredSettingsStandInForASecret: with the capacity settings in
// Secrets the exporter's RBAC still grants no Secret. With the pods'
// annotations the exporter's verdict is the one the settings make (two
// workers of concurrency 6, each runner-bound at 4, 8 in all, the ceiling
// set by the runner slots at 8 ÷ the task time). With the annotations
// taken off the same running pods, it publishes no worker concurrency,
// effective concurrency or ceiling, and no runner limit but the true one;
// put back, the workers return.
func TestDeclaredSettingsStandInForASecret(t *testing.T) {
	start := time.Now()
	c, eps := needCluster(t, declaredShape)
	metrics, hook := endpoint(t, eps, "exporter-metrics"), endpoint(t, eps, "webhook")
	checkSettingsOutOfConfigMaps(t, c)
	t.Run("RBAC", func(t *testing.T) { checkSecretsDenied(t, c) })

	readExporter(t, metrics) // the task time is the probes' difference between scrapes
	if res := lab.ClosedLoop(context.Background(), hook, lab.BenchBody(1000, 0), 8, 0, 4*time.Second); res.Failed > 0 || res.OK == 0 {
		t.Fatalf("warm-up: %d ok, %d failed, e.g. %v", res.OK, res.Failed, res.Errors)
	}
	s, err := waitSnapshot(metrics, time.Minute, func(s *snapshot.Snapshot) error {
		if len(s.Workers) != 2 || !s.Cluster.Ceiling.OK || s.Used["task"] != "probe" {
			return fmt.Errorf("%d workers, ceiling %+v, task stage from %q", len(s.Workers), s.Cluster.Ceiling, s.Used["task"])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkRunnerBoundVerdict(t, s)
	t.Logf("TIMING declared: %.1fs (reshape included)", time.Since(start).Seconds())

	start = time.Now()
	declared := declarations(t, c)
	for pod, as := range declared {
		var args []string
		for k := range as {
			args = append(args, k+"-")
		}
		kubectl(t, eps, append([]string{"annotate", "pod", pod}, args...)...)
	}
	s, err = waitSnapshot(metrics, scrapeInterval, func(s *snapshot.Snapshot) error {
		if len(s.Workers) != 0 || s.Cluster.Effective.OK || s.Cluster.Ceiling.OK {
			return fmt.Errorf("without annotations: workers %+v, effective %+v, ceiling %+v; want none published",
				s.Workers, s.Cluster.Effective, s.Cluster.Ceiling)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	// A probe may still see a runner's limit (pkg/collector observeLimits):
	// only the true one may be published.
	for _, r := range s.Unpaired {
		if r.Limit != shapeRunnerLimit {
			t.Errorf("without annotations: runner %s published with limit %d, its limit is %d", r.Name, r.Limit, shapeRunnerLimit)
		}
	}
	t.Logf("TIMING without annotations: %.1fs", time.Since(start).Seconds())

	for pod, as := range declared {
		args := []string{"annotate", "pod", pod}
		for k, v := range as {
			args = append(args, k+"="+v)
		}
		kubectl(t, eps, args...)
	}
	if _, err := waitSnapshot(metrics, scrapeInterval, func(s *snapshot.Snapshot) error {
		if len(s.Workers) != 2 || !s.Cluster.Effective.OK {
			return fmt.Errorf("with the annotations back: %d workers, effective %+v", len(s.Workers), s.Cluster.Effective)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}

// waitSnapshot reads the exporter until ok is nil, for at most d, and
// returns the last reading.
func waitSnapshot(metrics string, d time.Duration, ok func(*snapshot.Snapshot) error) (*snapshot.Snapshot, error) {
	var s *snapshot.Snapshot
	err := lab.Until(context.Background(), d, time.Second, func(ctx context.Context) error {
		var err error
		if s, err = (&snapshot.Reader{URL: metrics}).Read(ctx); err != nil {
			return err
		}
		return ok(s)
	})
	return s, err
}

// declarations are the n8n-ceiling.io/ annotations of every pod of the lab
// chart, by pod name.
func declarations(t *testing.T, c *labCluster) map[string]map[string]string {
	t.Helper()
	var pods struct {
		Items []struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"items"`
	}
	u := c.api + "/api/v1/namespaces/" + namespace + "/pods?labelSelector=app.kubernetes.io%2Finstance%3Dn8n"
	if err := kube.GetJSON(context.Background(), c.admin, u, &pods); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, p := range pods.Items {
		for k, v := range p.Metadata.Annotations {
			if strings.HasPrefix(k, "n8n-ceiling.io/") {
				if out[p.Metadata.Name] == nil {
					out[p.Metadata.Name] = map[string]string{}
				}
				out[p.Metadata.Name][k] = v
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no pod of the lab chart declares a setting")
	}
	return out
}

// kubectl runs the cluster's kubectl in the lab's namespace.
func kubectl(t *testing.T, eps endpoints.Endpoints, args ...string) {
	t.Helper()
	bin := filepath.Join(cacheDir(), "bin", "kubectl")
	out, err := exec.Command(bin, append([]string{"--kubeconfig", eps["kubeconfig"], "-n", namespace}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
}

// checkSettingsOutOfConfigMaps: no ConfigMap of the namespace holds a
// capacity setting, so the exporter can have them only from the Secrets
// it may not read or from the annotations.
func checkSettingsOutOfConfigMaps(t *testing.T, c *labCluster) {
	t.Helper()
	var cms struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Data map[string]string `json:"data"`
		} `json:"items"`
	}
	if err := kube.GetJSON(context.Background(), c.admin, c.api+"/api/v1/namespaces/"+namespace+"/configmaps", &cms); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		for _, k := range capacityKeys {
			if _, ok := cm.Data[k]; ok {
				t.Errorf("ConfigMap %s holds %s", cm.Metadata.Name, k)
			}
		}
	}
}

// checkRunnerBoundVerdict: two workers of concurrency 6, each with one
// runner of limit 4, runner-bound; cluster effective 8; each worker's
// slot resources hold those slots. The ceiling is the runner slots', 8 ÷
// the probes' task time (±10 %), unless a CPU resource binds below it: the
// host's CPU, which the settings do not give and other work on this
// machine shares.
func checkRunnerBoundVerdict(t *testing.T, s *snapshot.Snapshot) {
	t.Helper()
	for _, w := range s.Workers {
		if w.Concurrency != shapeConcurrency || w.Capacity != (snapshot.Sample{Value: shapeRunnerLimit, OK: true}) ||
			w.Effective != (snapshot.Sample{Value: shapeRunnerLimit, OK: true}) || w.Bottleneck != "runner" ||
			len(w.Runners) != 1 || w.Runners[0].Limit != shapeRunnerLimit {
			t.Errorf("worker %s: concurrency %d, capacity %+v, effective %+v, bottleneck %q, runners %+v; want 6, 4, 4, runner, one of limit 4",
				w.Name, w.Concurrency, w.Capacity, w.Effective, w.Bottleneck, w.Runners)
		}
		checkSlots(t, s, "slots:runner:"+w.Name, shapeRunnerLimit, true)
		checkSlots(t, s, "slots:worker:"+w.Name, shapeConcurrency, false)
	}
	if s.Cluster.Effective != (snapshot.Sample{Value: 2 * shapeRunnerLimit, OK: true}) {
		t.Errorf("cluster effective %+v, want 8", s.Cluster.Effective)
	}
	task, ok := serviceTime(s, "task", "probe")
	slots := 2 * shapeRunnerLimit / task
	bound := binding(s)
	t.Logf("declared: ceiling %.2f/s bound by %s; task time %.3f s, 8 runner slots ÷ it = %.2f/s", s.Cluster.Ceiling.Value, bound, task, slots)
	if !ok {
		t.Fatal("no task time from the probes")
	}
	byRunners := !slices.ContainsFunc(strings.Split(bound, ", "), func(r string) bool { return !strings.HasPrefix(r, "slots:runner:") })
	byCPU := strings.HasPrefix(bound, "cpu:") && !strings.Contains(bound, ", ")
	switch {
	case byRunners && math.Abs(s.Cluster.Ceiling.Value/slots-1) > 0.10:
		t.Errorf("bound by the runner slots, the ceiling %.2f/s is not 8 ÷ the task time = %.2f/s (±10%%)", s.Cluster.Ceiling.Value, slots)
	case byCPU && s.Cluster.Ceiling.Value > slots*1.10:
		t.Errorf("bound by %s at %.2f/s, above the runner slots' %.2f/s", bound, s.Cluster.Ceiling.Value, slots)
	case !byRunners && !byCPU:
		t.Errorf("binding resources %q, want the runner slots or one CPU below them", bound)
	}
}

// checkSlots: the resource name (when published, or always when
// required) has servers slots.
func checkSlots(t *testing.T, s *snapshot.Snapshot, name string, servers int, required bool) {
	t.Helper()
	r, ok := s.Resource(name)
	switch {
	case !ok && required:
		t.Errorf("no resource %s", name)
	case ok && r.Servers != (snapshot.Sample{Value: float64(servers), OK: true}):
		t.Errorf("resource %s: servers %+v, want %d", name, r.Servers, servers)
	}
}
