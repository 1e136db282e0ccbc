package kube_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
)

// baseShape is the cluster every test starts from: two worker pods of
// concurrency 6, each with a runner sidecar of limit 4 and a probe, the
// settings in ConfigMaps. Tests
// that need another shape reshape it (up.sh again) and later ones return.
var baseShape = map[string]string{
	"KUBE_WORKERS": "2", "KUBE_WORKER_CONCURRENCY": "6", "KUBE_RUNNER_LIMIT": "4", "KUBE_PROBE": "1",
	"KUBE_WORKERS_WITHOUT_RUNNER": "0", "KUBE_CONCURRENCY_FROM_SECRET": "0", "KUBE_KEDA": "off", "KUBE_KEDA_MAX": "5",
	"KUBE_RUNNER_LAYOUT": "sidecar", "KUBE_SETTINGS": "configmap", "KUBE_DECLARE": "0",
}

// shape is baseShape with key=value overrides.
func shape(kv ...string) map[string]string {
	s := maps.Clone(baseShape)
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i]] = kv[i+1]
	}
	return s
}

// cluster is the one lab the suite brings up in TestMain; nil without
// N8N_CEILING_E2E=1.
var cluster *labCluster

type labCluster struct {
	mu    sync.Mutex
	shape map[string]string
	eps   endpoints.Endpoints
	api   string
	admin *http.Client
}

// TestMain brings the cluster up once, cold (down.sh first, so a cluster
// left running is torn down), runs the tests, then takes it down and
// checks that nothing is left and the host sysctls are as they were.
// KUBE_KEEP=1 leaves it running.
func TestMain(m *testing.M) {
	if os.Getenv("N8N_CEILING_E2E") != "1" {
		os.Exit(m.Run())
	}
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	start := time.Now()
	ctx := context.Background()
	log := lines(func(s string) { fmt.Fprintln(os.Stderr, s) })
	if err := kube.Down(ctx, nil, log); err != nil {
		fmt.Fprintln(os.Stderr, "kube e2e: down.sh before the start:", err)
		return 1
	}
	before := readSysctls()
	c, err := bringUp(ctx, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube e2e:", err)
		_ = kube.Down(ctx, nil, log)
		return 1
	}
	cluster = c
	code := m.Run()
	if os.Getenv("KUBE_KEEP") == "1" {
		fmt.Fprintln(os.Stderr, "kube e2e: KUBE_KEEP=1: the cluster stays up")
		return code
	}
	if failures := tearDown(ctx, log, before); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "--- FAIL: teardown\n    %s\n", strings.Join(failures, "\n    "))
		code = 1
	}
	fmt.Fprintf(os.Stderr, "kube e2e: TIMING whole suite (down, up, tests, down): %.1fs\n", time.Since(start).Seconds())
	return code
}

func bringUp(ctx context.Context, log io.Writer) (*labCluster, error) {
	start := time.Now()
	eps, err := kube.Up(ctx, baseShape, log)
	if err != nil {
		return nil, fmt.Errorf("up.sh %v: %w", baseShape, err)
	}
	fmt.Fprintf(os.Stderr, "kube e2e: TIMING up (cold) %v: %.1fs\n", baseShape, time.Since(start).Seconds())
	api, err := eps.Must("apiserver")
	if err != nil {
		return nil, err
	}
	pki := filepath.Join(state(), "pki")
	admin, err := kube.APIClient(filepath.Join(pki, "ca.crt"), filepath.Join(pki, "admin.token"))
	if err != nil {
		return nil, err
	}
	return &labCluster{shape: maps.Clone(baseShape), eps: eps, api: api, admin: admin}, nil
}

// tearDown runs down.sh and says what it left: processes, mounts and the
// rest (kube.LabFootprint), and host sysctls that differ from before.
func tearDown(ctx context.Context, log io.Writer, before map[string]string) []string {
	var failures []string
	during := readSysctls()
	if left := kube.LabFootprint().Leftovers(); len(left) == 0 {
		failures = append(failures, "the leftover check sees nothing of a running cluster")
	}
	start := time.Now()
	if err := kube.Down(ctx, nil, log); err != nil {
		return append(failures, err.Error())
	}
	fmt.Fprintf(os.Stderr, "kube e2e: TIMING down: %.1fs\n", time.Since(start).Seconds())
	if left := kube.LabFootprint().Leftovers(); len(left) > 0 {
		failures = append(failures, "left behind:\n"+strings.Join(left, "\n"))
	}
	after := readSysctls()
	for k, v := range before {
		if after[k] != v {
			failures = append(failures, fmt.Sprintf("sysctl %s: %s before, %s after (%s while up)", k, v, after[k], during[k]))
		}
	}
	return failures
}

// needCluster returns the suite's cluster in the shape given, running
// up.sh only when the shape differs from the current one; without
// N8N_CEILING_E2E=1 it skips.
func needCluster(t *testing.T, want map[string]string) (*labCluster, endpoints.Endpoints) {
	t.Helper()
	if cluster == nil {
		t.Skip("set N8N_CEILING_E2E=1 to bring up the real single-node cluster")
	}
	cluster.mu.Lock()
	defer cluster.mu.Unlock()
	if !maps.Equal(cluster.shape, want) {
		cluster.eps = up(t, want)
		cluster.shape = maps.Clone(want)
	}
	return cluster, cluster.eps
}

func up(t *testing.T, env map[string]string) endpoints.Endpoints {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	eps, err := kube.Up(ctx, env, lines(func(s string) { t.Log(s) }))
	if err != nil {
		t.Fatalf("up.sh %v: %v", env, err)
	}
	t.Logf("TIMING up %v: %.1fs", env, time.Since(start).Seconds())
	return eps
}

// hostSysctls are the host values the cluster must leave as it found them:
// the ones the kubelet rewrites, and the network ones that must change only
// inside the cluster's namespace.
var hostSysctls = []string{
	"vm.overcommit_memory", "kernel.panic", "kernel.panic_on_oops", "vm.panic_on_oom",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward", "net.ipv4.conf.all.route_localnet", "net.bridge.bridge-nf-call-iptables",
	"net.netfilter.nf_conntrack_max",
}

func readSysctls() map[string]string {
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

// lineWriter passes script output on line by line.
type lineWriter struct {
	emit func(string)
	mu   sync.Mutex
	buf  []byte
}

func lines(emit func(string)) *lineWriter { return &lineWriter{emit: emit} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.emit(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

// reshaped records a shape that a test brought up itself.
func (c *labCluster) reshaped(shape map[string]string, eps endpoints.Endpoints) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shape, c.eps = maps.Clone(shape), eps
}
