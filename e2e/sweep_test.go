package e2e

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/headless"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// buildTool builds one of the project's commands into a temp dir.
func buildTool(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = ".."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// runTool runs a command and returns its exit code and combined output.
func runTool(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	return runToolIn(t, "", bin, args...)
}

// runToolIn is runTool in directory dir.
func runToolIn(t *testing.T, dir, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("%s: %v", bin, err)
	return -1, ""
}

// TestSweepAndDashboards: a closed sweep over 3, 6 and 12 VUs against
// runner limit 5 and worker 15, with 1 s tasks, while Debian's Prometheus
// scrapes the lab's exporter, probes, n8n and the sweep every second.
//   - Throughput climbs to about 5/s and stops there; the knee is the
//     lowest step already on that plateau.
//   - Every dashboard panel and recorded rule returns data over the run
//     (checkPanels).
//
// Each step is 12 s after a 3 s warm-up: at 12 VUs one cycle is about
// 2.4 s, so every VU passes at least four times and loadctl counts whole
// cycles; the slots' ceiling, 5 ÷ the probe's task time, holds at any
// step length.
func TestSweepAndDashboards(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_PROBE": "1", "LAB_RUNNER_MEMORY": "2g", "LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "5"})
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install the Debian package prometheus (make deps does)")
	}
	loadctl := buildTool(t, "cmd/loadctl")
	loadAddr := freeAddr(t)
	targets := scrapeTargets(t, eps, loadAddr)
	prom := startPrometheus(t, promBin, targets)
	prom.waitUp(t, len(targets)-1) // all but loadctl, which serves only during the sweep

	dir := t.TempDir()
	result, report := filepath.Join(dir, "result.json"), filepath.Join(dir, "report.html")
	start := time.Now()
	code, out := runTool(t, loadctl, "sweep", "--url", must(t, eps, "webhook"), "--vus", "3,6,12",
		"--step", "12s", "--warmup", "3s", "--set", "sleep_ms=1000", "--check", "ok==true",
		"--exporter", must(t, eps, "exporter-metrics"), "--metrics-listen", loadAddr,
		"--out", result, "--report", report, "--threshold", "fail_rate<0.05", "--quiet")
	end := time.Now()
	t.Logf("loadctl sweep exit %d:\n%s", code, out)
	if code != 0 {
		t.Fatalf("sweep exit %d, want 0 (thresholds pass)", code)
	}
	checkSweep(t, loadctl, result, report)
	checkPanels(t, prom, start, end)
}

// checkSweep: the saved sweep found the ceiling of runner limit 5 and its
// knee, its thresholds apply to the saved run, and its report renders.
func checkSweep(t *testing.T, loadctl, result, report string) {
	t.Helper()
	res := readResult(t, result)
	ceiling := 5 / measuredTaskSeconds
	best := 0.0
	for _, s := range res.Steps {
		f := s.Figures
		if f.PassRate != 1 {
			t.Errorf("%d VU: pass rate %.3f", s.Load.VUs, f.PassRate)
		}
		best = math.Max(best, f.Throughput)
		if c := comparison.Of(s); c == nil || c.Error != "" || c.Bottleneck != "runner" {
			t.Errorf("%d VU: exporter comparison %+v, want runner-bound", s.Load.VUs, c)
		}
	}
	figure(t, fmt.Sprintf("best step ÷ 5/%.2f s", measuredTaskSeconds), "1 ± 0.12", best/ceiling, math.Abs(best-ceiling)/ceiling <= 0.12)
	if math.Abs(best-ceiling)/ceiling > 0.12 {
		t.Errorf("best step %.2f/s, want about %.2f/s", best, ceiling)
	}
	if res.Knee == nil {
		t.Fatal("no knee reported")
	}
	knee := res.Knee
	// The knee is within 5 % of the best, nothing after it adds 5 %, and
	// every step before it within 5 % of the best had a later step that did.
	if knee.MeasuredCeiling < 0.95*best {
		t.Errorf("knee at %.2f/s, below 95 %% of the best %.2f/s", knee.MeasuredCeiling, best)
	}
	for _, s := range res.Steps[:knee.Index] {
		if x := s.Figures.Throughput; x >= 0.95*best && !risesAfter(res.Steps[s.Index+1:], x) {
			t.Errorf("knee at step %d, but step %d (%d VU, %.2f/s) is already on the plateau", knee.Index, s.Index, s.Load.VUs, x)
		}
	}
	if risesAfter(res.Steps[knee.Index+1:], knee.MeasuredCeiling) {
		t.Errorf("throughput still rising after the knee at %.2f/s", knee.MeasuredCeiling)
	}
	t.Logf("knee at %d VU, measured ceiling %.2f/s, predicted %.2f/s", knee.Load.VUs, knee.MeasuredCeiling, ceiling)

	// Thresholds over the saved run: a latency bound it cannot meet exits 99,
	// bad usage exits 2.
	if code, out := runTool(t, loadctl, "sweep", "--from", result, "--threshold", "p95<100ms"); code != 99 {
		t.Errorf("failing threshold: exit %d, want 99\n%s", code, out)
	}
	if code, out := runTool(t, loadctl, "sweep", "--from", result, "--threshold", "p95<>1"); code != 2 || !strings.Contains(out, "--threshold") {
		t.Errorf("bad threshold: exit %d, want 2 naming --threshold\n%s", code, out)
	}
	checkReportRenders(t, report)
}

func readResult(t *testing.T, path string) *loadgen.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := loadgen.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkReportRenders opens the HTML report in headless Chromium: the DOM
// must hold the SVG charts, and a screenshot is kept next to the report.
func checkReportRenders(t *testing.T, report string) {
	t.Helper()
	chromium, err := headless.Find()
	if err != nil {
		t.Fatal("chromium is not installed (make deps installs it)")
	}
	b := headless.Browser{Path: chromium, Profile: t.TempDir(), Width: 1200, Height: 1800}
	dom, err := b.DumpDOM(report)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<svg"); n < 3 {
		t.Errorf("rendered report holds %d SVG charts, want 3", n)
	}
	shot := strings.TrimSuffix(report, ".html") + ".png"
	if err := b.Screenshot(report, shot); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 20000 {
		t.Errorf("screenshot %s missing or blank (%v)", shot, err)
	}
}

// risesAfter says whether a step in later adds 5 % or more over x.
func risesAfter(later []loadgen.StepResult, x float64) bool {
	for _, s := range later {
		if s.Figures.Throughput >= 1.05*x {
			return true
		}
	}
	return false
}
