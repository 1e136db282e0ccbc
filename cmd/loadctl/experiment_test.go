package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// fakeExporter serves a fixed exporter answer (runner limit 4, worker 15,
// ceiling 40/s, bottleneck runner): the real exporter needs Docker and n8n,
// which a unit test must not start.
func fakeExporter(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `n8n_worker_concurrency{worker="w1"} 15
n8n_runner_max_concurrency{runner="r1",worker="w1"} 4
n8n_worker_runner_capacity{worker="w1"} 4
n8n_worker_bottleneck{component="runner",worker="w1"} 1
n8n_worker_bottleneck{component="worker",worker="w1"} 0
n8n_cluster_ceiling_executions_per_second 40
`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

func writeSpec(t *testing.T, bottleneck string) string {
	t.Helper()
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"ok":true}`)
	}))
	t.Cleanup(hook.Close)
	spec := fmt.Sprintf(`name: cli
apply: {kind: none}
target: {urls: [%q], exporter: %q, checks: ["ok==true"], timeout: 5s}
load: {vus: [2], step: 300ms, warmup: 50ms}
settle: {timeout: 5s, poll: 50ms}
sample_every: 100ms
cases:
  - name: only
    wait: {runner_limits: [4]}
    expect: {bottleneck: %s, fail_rate_max: 0}
`, hook.URL+"/webhook/bench", fakeExporter(t), bottleneck)
	return specFile(t, spec)
}

// specFile writes an experiment spec to a file of its own.
func specFile(t *testing.T, spec string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExperimentUsage(t *testing.T) {
	bad := specFile(t, "name: x\napply: {command: [bash, up.sh]}\ncases: [{name: a, expect: {within: 7}}]\nload: {vus: [1]}\n")
	badMethod := specFile(t, "name: x\napply: {command: [bash, up.sh]}\ntarget: {method: GE T}\ncases: [{name: a}]\nload: {vus: [1]}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give --spec"},
		{[]string{"--spec", bad, "saved.json"}, "not both"},
		{[]string{"--spec", bad}, "expect.within 7"},
		{[]string{"--spec", "/nonexistent.yaml"}, "no such file"},
		{[]string{"--out", "x.json", bad}, "--out needs --spec"},
		{[]string{"--spec", badMethod}, `target.method: method "GE T"`},
		{[]string{"--spec", writeSpec(t, "runner"), "--cases", "zz"}, `no case "zz"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"experiment"}, tc.args...), &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestExperimentRunsAndReports(t *testing.T) {
	dir := t.TempDir()
	out, html, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html"), filepath.Join(dir, "s.md")
	var stdout, stderr bytes.Buffer
	code := run([]string{"experiment", "--quiet", "--spec", writeSpec(t, "runner"), "--out", out, "--report", html, "--markdown", md}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "all checks passed") {
		t.Errorf("table:\n%s", stdout.String())
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.ReadJSON(fh)
	fh.Close()
	if err != nil || len(res.Cases) != 1 || res.Cases[0].Predicted.Ceiling != 40 || res.Cases[0].Failures.Requests == 0 {
		t.Fatalf("saved result %+v, %v", res, err)
	}
	for _, p := range []string{html, md} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	// Re-reporting the saved result gives the same verdict and summary.
	md2 := filepath.Join(dir, "s2.md")
	if code := run([]string{"experiment", "--markdown", md2, out}, &stdout, &stderr); code != exitOK {
		t.Errorf("re-report exit %d: %s", code, stderr.String())
	}
	a, _ := os.ReadFile(md)
	b, _ := os.ReadFile(md2)
	if !bytes.Equal(a, b) {
		t.Errorf("re-reported summary differs:\n%s\n---\n%s", a, b)
	}
}

func TestExperimentFailedCheckExits99(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"experiment", "--quiet", "--spec", writeSpec(t, "worker")}, &stdout, &stderr)
	if code != exitThreshold {
		t.Fatalf("exit %d, want %d\n%s", code, exitThreshold, stdout.String())
	}
	if !strings.Contains(stdout.String(), "FAILED only: bottleneck want worker, got runner") {
		t.Errorf("table does not name the failed check:\n%s", stdout.String())
	}
}

func TestExperimentCaseThatCannotRunExits1(t *testing.T) {
	spec := specFile(t, "name: broken\napply: {kind: command, command: [\"false\"], timeout: 5s}\nload: {vus: [1]}\ncases: [{name: a}]\n")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"experiment", "--quiet", "--spec", spec}, &stdout, &stderr); code != exitError {
		t.Fatalf("exit %d, want %d\n%s", code, exitError, stdout.String())
	}
	if !strings.Contains(stdout.String(), "a: error: apply false: exit status 1") {
		t.Errorf("table does not show the case error:\n%s", stdout.String())
	}
}
