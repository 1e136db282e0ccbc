package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

// TestExperiments runs every shipped experiment spec (each e2e/experiments/
// *.yaml) against the real lab through `loadctl experiment`. The specs carry
// their own acceptance checks (measured ÷ the exporter's ceiling, the
// binding resource, the MVA at every step, memory rise, OOM, the worker
// without runner); loadctl exits 99 when one fails.
//
// E2E_EXPERIMENTS narrows the run: space-separated specs, each optionally
// with its cases, e.g. "runner-limit:limit-5 pairs". E2E_EXPERIMENTS_SKIP
// leaves out whole specs, e.g. "scenarios shapes".
func TestExperiments(t *testing.T) {
	specs, err := experimentRuns(os.Getenv("E2E_EXPERIMENTS"), os.Getenv("E2E_EXPERIMENTS_SKIP"))
	if err != nil {
		t.Fatal(err)
	}
	upLab(t, map[string]string{"LAB_PROBE": "1"})
	version, err := lab.Version(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	loadctl := buildTool(t, "cmd/loadctl")
	dir := resultsDir() // make e2e-repeat reads the results back
	if dir == "" {
		dir = t.TempDir()
	}
	var failed []string // repeated at the end, where a log's tail shows it
	defer func() {
		if len(failed) > 0 {
			t.Errorf("failed checks:\n%s", strings.Join(failed, "\n"))
		}
	}()
	for _, r := range specs {
		t.Run(r.name, func(t *testing.T) {
			out := filepath.Join(dir, r.name)
			args := []string{"experiment", "--spec", "e2e/experiments/" + r.name + ".yaml",
				"--out", out + ".json", "--report", out + ".html", "--markdown", out + ".md", "--quiet"}
			if r.cases != "" {
				args = append(args, "--cases", r.cases)
			}
			code, log := runToolIn(t, "..", loadctl, args...)
			t.Logf("loadctl experiment %s: exit %d\n%s", r.name, code, log)
			if code != 0 {
				t.Errorf("experiment %s: exit %d, want 0 (99 means a check failed)", r.name, code)
				failed = append(failed, failedLines(r.name, code, out+".json")...)
			}
			checkVersion(t, out+".json", version)
		})
	}
}

// checkVersion: every case that ran records the n8n version its main
// stated, and it is the one the lab was told to run.
func checkVersion(t *testing.T, resultPath, want string) {
	t.Helper()
	r, err := experiment.ReadFile(resultPath)
	if err != nil {
		t.Error(err)
		return
	}
	for _, c := range r.Cases {
		if c.Error == "" && c.N8nVersion != want {
			t.Errorf("case %s recorded n8n %q, want %q (LAB_N8N_VERSION)", c.Name, c.N8nVersion, want)
		}
	}
}

// failedLines are the failed checks and case errors of a spec's saved
// result, or its exit code when there is no result (it could not run).
func failedLines(spec string, code int, resultPath string) []string {
	var out []string
	if r, err := experiment.ReadFile(resultPath); err == nil {
		for _, l := range report.FailedChecks(r) {
			out = append(out, spec+": "+l)
		}
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("%s: exit %d", spec, code))
	}
	return out
}

// experimentRun is one spec to run, with its cases ("" for every case).
type experimentRun struct{ name, cases string }

// experimentRuns reads E2E_EXPERIMENTS; empty means every shipped spec
// but those skip names.
func experimentRuns(list, skip string) ([]experimentRun, error) {
	shipped, err := filepath.Glob("experiments/*.yaml")
	if err != nil || len(shipped) == 0 {
		return nil, fmt.Errorf("no experiment specs in e2e/experiments (%v)", err)
	}
	have := map[string]bool{}
	var all []experimentRun
	for _, s := range shipped {
		name := strings.TrimSuffix(filepath.Base(s), ".yaml")
		have[name] = true
		if !slices.Contains(strings.Fields(skip), name) {
			all = append(all, experimentRun{name: name})
		}
	}
	for _, name := range strings.Fields(skip) {
		if !have[name] {
			return nil, fmt.Errorf("E2E_EXPERIMENTS_SKIP names %s, which is no spec in e2e/experiments", name)
		}
	}
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	var out []experimentRun
	for _, f := range strings.Fields(list) {
		name, cases, _ := strings.Cut(f, ":")
		if !have[name] {
			return nil, fmt.Errorf("E2E_EXPERIMENTS names %s, which is no spec in e2e/experiments", name)
		}
		out = append(out, experimentRun{name: name, cases: cases})
	}
	return out, nil
}

func TestExperimentRuns(t *testing.T) {
	all, err := experimentRuns("", "")
	if err != nil || len(all) < 6 {
		t.Fatalf("every spec: %v, %v", all, err)
	}
	if less, err := experimentRuns("", "pairs"); err != nil || len(less) != len(all)-1 || slices.Contains(less, experimentRun{name: "pairs"}) {
		t.Errorf("every spec but pairs: %v, %v", less, err)
	}
	if _, err := experimentRuns("", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown skip: %v, want an error naming it", err)
	}
	got, err := experimentRuns("runner-limit:limit-5 pairs", "")
	if err != nil || len(got) != 2 || got[0] != (experimentRun{"runner-limit", "limit-5"}) || got[1] != (experimentRun{"pairs", ""}) {
		t.Errorf("narrowed: %v, %v", got, err)
	}
	if _, err := experimentRuns("nope", ""); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown spec: %v, want an error naming it", err)
	}
}

func TestFailedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.json")
	res := &experiment.Result{Schema: experiment.SchemaVersion, Cases: []experiment.CaseResult{{Name: "a",
		Checks: []experiment.CheckResult{{Name: "bottleneck", Want: "worker", Got: "runner"}, {Name: "fail_rate_max", Passed: true}}}}}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := experiment.WriteJSON(f, res); err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	if got := failedLines("x", 99, path); len(got) != 1 || got[0] != "x: a: bottleneck want worker, got runner" {
		t.Errorf("failedLines: %q", got)
	}
	if got := failedLines("x", 2, filepath.Join(t.TempDir(), "none.json")); len(got) != 1 || got[0] != "x: exit 2" {
		t.Errorf("failedLines without a result: %q", got)
	}
}
