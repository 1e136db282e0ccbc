package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/dashboards"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"gopkg.in/yaml.v3"
)

// dashboardVars are the values Grafana would substitute. $__rate_interval
// spans n8n's 20 s refresh of its queue counters, as Grafana's minimum of
// four scrape intervals would with a 5 s scrape.
var dashboardVars = map[string]string{
	"worker":          ".*", // "All"
	"probe":           ".*",
	"datasource":      "prometheus",
	"__rate_interval": "20s",
	"__interval":      "10s",
}

// checkPanels is the Prometheus-backed panel check: every query of every
// panel of the committed dashboard, the variables' sources and every
// recorded rule must return at least one series over the run from start
// to end, its first 5 s left out.
func checkPanels(t *testing.T, prom *promServer, start, end time.Time) {
	t.Helper()
	time.Sleep(3 * time.Second) // let the last scrapes and rule evaluations land
	doc, err := os.ReadFile("../dashboards/n8n-ceiling.json")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := dashboards.Queries(doc)
	if err != nil {
		t.Fatal(err)
	}
	from := start.Add(5 * time.Second)
	for _, q := range qs {
		expr := dashboards.Substitute(q.Expr, dashboardVars)
		n, err := prom.seriesOver(expr, from, end)
		switch {
		case err != nil:
			t.Errorf("%s / %s %s: %v\n  %s", q.Row, q.Panel, q.RefID, err, expr)
		case n == 0:
			t.Errorf("%s / %s %s: no series during the run\n  %s", q.Row, q.Panel, q.RefID, expr)
		default:
			t.Logf("%s / %s %s: %d series", q.Row, q.Panel, q.RefID, n)
		}
	}
	// The variables' label_values queries read these metrics.
	for _, m := range []string{"n8n_worker_concurrency", "n8n_runner_tasks_running"} {
		if n, err := prom.seriesOver(m, from, end); err != nil || n == 0 {
			t.Errorf("variable source %s: %d series, %v", m, n, err)
		}
	}
	for _, rec := range recordedNames(t) {
		n, err := prom.seriesOver(rec, from, end)
		if err != nil || n == 0 {
			t.Errorf("recording rule %s: %d series, %v", rec, n, err)
			continue
		}
		t.Logf("recording rule %s: %d series", rec, n)
	}
}

// scrapeTargets maps a job name to each distinct metrics URL: the exporter,
// every probe (in-process probes share the exporter's URL), main, worker 1
// and loadctl.
func scrapeTargets(t *testing.T, eps endpoints.Endpoints, loadAddr string) map[string]string {
	t.Helper()
	names := []string{"exporter-metrics", "main-metrics", "worker-metrics-1"}
	for n := 1; ; n++ {
		name := "probe-metrics-" + strconv.Itoa(n)
		if _, ok := eps[name]; !ok {
			if n == 1 {
				t.Fatal("the lab printed no probe-metrics-1 endpoint with LAB_PROBE=1")
			}
			break
		}
		names = append(names, name)
	}
	jobs, seen := map[string]string{}, map[string]bool{}
	for _, name := range names {
		u := must(t, eps, name)
		if !seen[u] {
			seen[u] = true
			jobs[name] = u
		}
	}
	jobs["loadctl"] = "http://" + loadAddr + "/metrics"
	return jobs
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// recordedNames reads the recording rules the compose stack ships.
func recordedNames(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../compose/prometheus/rules/*.yml")
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rf struct {
			Groups []struct{ Rules []struct{ Record string } }
		}
		if err := yaml.Unmarshal(data, &rf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Record != "" {
					names = append(names, r.Record)
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no recording rules under compose/prometheus/rules")
	}
	return names
}

// promServer is a prometheus process this test started; it is stopped by
// PID when the test ends.
type promServer struct {
	base string
}

func startPrometheus(t *testing.T, bin string, jobs map[string]string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, promConfig(t, jobs), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--storage.tsdb.retention.time=1h")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logf.Close()
		if t.Failed() {
			if log, err := os.ReadFile(logf.Name()); err == nil {
				t.Logf("prometheus log (tail):\n%s", logTail(string(log), 30))
			}
		}
	})
	p := &promServer{base: "http://" + addr}
	p.waitReady(t)
	return p
}

// promConfig scrapes every job each second and evaluates the shipped rules
// each second.
func promConfig(t *testing.T, jobs map[string]string) []byte {
	t.Helper()
	rules, err := filepath.Abs("../compose/prometheus/rules")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nrule_files:\n  - %q\nscrape_configs:\n", rules+"/*.yml")
	names := make([]string, 0, len(jobs))
	for n := range jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		u, err := url.Parse(jobs[n])
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		fmt.Fprintf(&b, "  - job_name: %q\n    metrics_path: %q\n    static_configs:\n      - targets: [%q]\n", n, u.Path, u.Host)
	}
	return []byte(b.String())
}

func (p *promServer) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(p.base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("prometheus not ready within 30 s")
}

// waitUp waits until at least n targets report up == 1.
func (p *promServer) waitUp(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := 0
	for time.Now().Before(deadline) {
		r, err := p.query("/api/v1/query", url.Values{"query": {"up == 1"}})
		if got = len(r); err == nil && got >= n {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("only %d of %d scrape targets up within 30 s", got, n)
}

// seriesOver evaluates expr over [from, to] at 1 s steps, as a Grafana
// panel over the run would, and returns how many series it gave.
func (p *promServer) seriesOver(expr string, from, to time.Time) (int, error) {
	r, err := p.query("/api/v1/query_range", url.Values{
		"query": {expr},
		"start": {strconv.FormatInt(from.Unix(), 10)},
		"end":   {strconv.FormatInt(to.Unix(), 10)},
		"step":  {"1"},
	})
	return len(r), err
}

func (p *promServer) query(path string, v url.Values) ([]json.RawMessage, error) {
	resp, err := http.PostForm(p.base+path, v)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct{ Result []json.RawMessage }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("prometheus: %s", body.Error)
	}
	return body.Data.Result, nil
}

func logTail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
