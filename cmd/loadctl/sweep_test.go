package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// capture is a webhook that answers {"ok":true} and keeps the last
// request's body, headers and path.
type capture struct {
	mu     sync.Mutex
	body   []byte
	header http.Header
	paths  map[string]int
}

func newCapture(t *testing.T) (*capture, *httptest.Server) {
	c := &capture{paths: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.body, c.header = b, r.Header.Clone()
		c.paths[r.URL.Path]++
		c.mu.Unlock()
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return c, srv
}

func sweepArgs(url string, extra ...string) []string {
	return append([]string{"sweep", "--url", url, "--step", "300ms", "--metrics-listen", "", "--quiet", "--check", "ok==true"}, extra...)
}

func TestSweepWritesOutputsAndThresholdExitCodes(t *testing.T) {
	_, srv := newCapture(t)
	dir := t.TempDir()
	out, csvPath, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.html")
	var stdout, stderr bytes.Buffer
	code := run(sweepArgs(srv.URL+"/webhook/bench", "--vus", "1,2", "--threshold", "fail_rate<0.05", "--threshold", "p95<1us",
		"--out", out, "--csv", csvPath, "--report", html), &stdout, &stderr)
	if code != exitThreshold {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitThreshold, stderr.String())
	}
	if !strings.Contains(stdout.String(), "threshold p95<1us") || !strings.Contains(stdout.String(), "FAILED") {
		t.Errorf("table:\n%s", stdout.String())
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	res, err := loadgen.ReadJSON(fh)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 || len(res.Thresholds) != 2 || !res.Thresholds[0].Passed || res.Thresholds[1].Passed {
		t.Errorf("result steps %d thresholds %+v", len(res.Steps), res.Thresholds)
	}
	for _, p := range []string{csvPath, html} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	code = run(sweepArgs(srv.URL, "--rate", "20/s", "--threshold", "fail_rate<0.05"), &stdout, &stderr)
	if code != exitOK {
		t.Errorf("passing thresholds: exit %d; stderr:\n%s", code, stderr.String())
	}
}

func TestSweepSendsBodyHeadersAndRotates(t *testing.T) {
	c, srv := newCapture(t)
	var stdout, stderr bytes.Buffer
	code := run(sweepArgs(srv.URL+"/a", "--url", srv.URL+"/b", "--vus", "1", "--set", "sleep_ms=3000", "--set", "tag=x",
		"--header", "X-Bench: yes"), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if string(c.body) != `{"alloc_mb":0,"sleep_ms":3000,"tag":"x"}` || c.header.Get("X-Bench") != "yes" ||
		c.header.Get("Content-Type") != "application/json" {
		t.Errorf("body %s headers %v", c.body, c.header)
	}
	if d := c.paths["/a"] - c.paths["/b"]; c.paths["/a"] == 0 || d < -1 || d > 1 {
		t.Errorf("round robin: %v", c.paths)
	}
}

func TestSweepMultipartUpload(t *testing.T) {
	c, srv := newCapture(t)
	var stdout, stderr bytes.Buffer
	if code := run(sweepArgs(srv.URL, "--vus", "1", "--upload", "2KiB", "--upload-mode", "multipart"), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, params, err := mime.ParseMediaType(c.header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	form, err := multipart.NewReader(bytes.NewReader(c.body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if f := form.File["file"]; len(f) != 1 || f[0].Size != 2048 || form.Value["sleep_ms"][0] != "1000" {
		t.Errorf("form values %v files %v", form.Value, form.File)
	}
}

func TestSweepUsageErrorsNameTheFlag(t *testing.T) {
	u := "http://127.0.0.1:1/webhook/bench"
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--url", []string{"sweep", "--vus", "1"}},
		{"--vus and --rate", sweepArgs(u, "--vus", "1", "--rate", "2/s")},
		{"--vus (closed", sweepArgs(u)},
		{"--threshold", sweepArgs(u, "--vus", "1", "--threshold", "p95<60")},
		{"--set", sweepArgs(u, "--vus", "1", "--set", "novalue")},
		{"--upload", sweepArgs(u, "--vus", "1", "--upload", "lots")},
		{"--upload-mode", sweepArgs(u, "--vus", "1", "--upload", "1KiB", "--upload-mode", "zip")},
		{"--header (number 2): want 'Name: value'", sweepArgs(u, "--vus", "1", "--header", "X-A: 1", "--header", "Bearer s3cret")},
		{"--check", sweepArgs(u, "--vus", "1", "--check", "ok")},
		{"-rate", sweepArgs(u, "--rate", "fast")},
		{"--exporter", sweepArgs(u, "--vus", "1", "--exporter", "localhost:9810")},
		{"--step", sweepArgs(u, "--vus", "1", "--step", "0s")},
		{"unexpected", sweepArgs(u, "--vus", "1", "extra")},
		{"--max-in-flight -3", sweepArgs(u, "--vus", "1", "--max-in-flight", "-3")},
		{"--max-in-flight -1", sweepArgs(u, "--rate", "2/s", "--max-in-flight", "-1")},
		{"--method: method \"GE\\tT\"", sweepArgs(u, "--vus", "1", "--method", "GE\tT")},
		{"--method: method is empty", sweepArgs(u, "--vus", "1", "--method", "")},
		{"--method: method \"ge t\"", sweepArgs(u, "--vus", "1", "--method", "ge t")},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", c.args, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: stderr %q does not name %q", c.args, stderr.String(), c.want)
		}
		if strings.Contains(stderr.String(), "s3cret") {
			t.Errorf("%q: stderr %q shows a header value", c.args, stderr.String())
		}
	}
}

// A lower-case method is a valid token and is sent upper-cased.
func TestSweepUpperCasesAValidMethod(t *testing.T) {
	var method atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method.Store(r.Method)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := run(sweepArgs(srv.URL, "--vus", "1", "--step", "500ms", "--method", "put"), &stdout, &stderr); code != exitOK || method.Load() != "PUT" {
		t.Errorf("exit %d, server saw %v: %s", code, method.Load(), stderr.String())
	}
}

func TestSweepMetricsListenTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	args := []string{"sweep", "--url", "http://127.0.0.1:1/", "--vus", "1", "--step", "100ms", "--metrics-listen", ln.Addr().String()}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "--metrics-listen") {
		t.Errorf("exit %d stderr %q", code, stderr.String())
	}
}

func TestSweepFromSavedResult(t *testing.T) {
	_, srv := newCapture(t)
	dir := t.TempDir()
	out, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	var stdout, stderr bytes.Buffer
	if code := run(sweepArgs(srv.URL, "--vus", "1,2", "--out", out), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	srv.Close() // re-reporting must not send load
	stdout.Reset()
	code := run([]string{"sweep", "--from", out, "--report", html, "--threshold", "p95<1us"}, &stdout, &stderr)
	if code != exitThreshold || !strings.Contains(stdout.String(), "threshold p95<1us") {
		t.Errorf("exit %d, table:\n%s", code, stdout.String())
	}
	if st, err := os.Stat(html); err != nil || st.Size() == 0 {
		t.Errorf("report: %v", err)
	}
	if code := run([]string{"sweep", "--from", filepath.Join(dir, "missing.json")}, &stdout, &stderr); code != exitUsage {
		t.Errorf("missing --from file: exit %d", code)
	}
}

// With --exporter each step's `exporter` object lands in the JSON result
// (the schema of docs/loadctl-json.md), the table grows the model's
// columns, and a re-report from the file shows them again.
func TestSweepComparesWithTheExporter(t *testing.T) {
	_, srv := newCapture(t)
	fixture, err := os.ReadFile("../../pkg/snapshot/testdata/exporter.prom")
	if err != nil {
		t.Fatal(err)
	}
	exp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(fixture) }))
	defer exp.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	if code := run(sweepArgs(srv.URL, "--vus", "1,2", "--exporter", exp.URL+"/metrics", "--out", out), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settings struct{ Exporter string }
		Steps    []struct {
			Exporter *struct {
				Ceiling    float64 `json:"ceiling_per_second"`
				Bottleneck string
				Prediction *struct {
					Throughput float64 `json:"throughput_per_second"`
				}
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Settings.Exporter != exp.URL+"/metrics" || len(doc.Steps) != 2 {
		t.Fatalf("settings.exporter %q, %d steps", doc.Settings.Exporter, len(doc.Steps))
	}
	for i, s := range doc.Steps {
		if c := s.Exporter; c == nil || c.Bottleneck != "runner" || c.Ceiling < 9.43 || c.Ceiling > 9.44 || c.Prediction == nil {
			t.Errorf("step %d exporter %+v", i+1, c)
		}
	}
	if !strings.Contains(stdout.String(), "pred req/s") || !strings.Contains(stdout.String(), "9.43") {
		t.Errorf("table lacks the model:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"sweep", "--from", out}, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "pred req/s") {
		t.Errorf("re-report exit %d:\n%s", code, stdout.String())
	}
}
