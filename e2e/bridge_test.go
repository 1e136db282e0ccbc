package e2e

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// bridgeMeasuredTolerance bounds loadctl's measured ÷ the exporter's
// published ceiling on each network: the limit-5 case's 3 %. Without a
// probe the exporter times the runner slots by Little's law over its window, and a saturated runner
// frees its 5 slots together about once a second, so a 60 s window counts
// about 280 tasks give or take one burst: a ceiling reads within 1.8 %.
const bridgeMeasuredTolerance = 0.03

// bridgeWindow is the exporter's windows (LAB_WINDOW) and the measured
// step. The bridge runs no probe (its probes would listen on the host), so
// the runner's task time is Little's law's: 15 s, the limit-5 case's
// window, counts one burst of 5 in about 75 tasks (up to 6.7 % off);
// 60 s brings that under 1.8 %.
const bridgeWindow = 60 * time.Second

// TestBridgeRunnerCeiling: the runner-limit experiment's limit-5 case
// (worker 15, runner limit 5, 1 s tasks) at its last step, 10 VUs, past
// the knee, through `loadctl experiment`, first on the host network and
// then on the lab's bridge with the runner dialling its own worker
// (LAB_RUNNER_TARGET=own). Both without the probe, whose listeners the
// bridge cannot reach, so the exporter times the runner the same way on
// both. On each network the runner slots of worker 1 bind, nothing fails
// and loadctl's measured throughput is within 3 % of the ceiling the
// exporter published at the step's end, with the same binding resource
// and effective concurrency. Other work on the host moves both cases' task times apart
// (make e2e runs the suite alone); each case logs the cores the exporter
// left to n8n.
func TestBridgeRunnerCeiling(t *testing.T) {
	spec := bridgeSpec(t)
	first := maps.Clone(spec.Env) // the first case's shape, so its apply is quick
	maps.Copy(first, spec.Cases[0].Env)
	upLab(t, first)
	dir := resultsDir()
	if dir == "" {
		dir = t.TempDir()
	}
	specPath, out := filepath.Join(t.TempDir(), "bridge.yaml"), filepath.Join(dir, "bridge.json")
	writeSpec(t, spec, specPath)
	start := time.Now()
	code, log := runToolIn(t, "..", buildTool(t, "cmd/loadctl"), "experiment", "--spec", specPath, "--out", out, "--quiet")
	t.Logf("loadctl experiment: exit %d in %v\n%s", code, time.Since(start).Round(time.Second), log)
	if code != 0 {
		t.Errorf("loadctl experiment exit %d, want 0:\n%v", code, failedLines(spec.Name, code, out))
	}
	r, err := experiment.ReadFile(out)
	if err != nil || len(r.Cases) != 2 {
		t.Fatalf("result %s: %v", out, err)
	}
	host, bridge := caseModel(t, r.Cases[0]), caseModel(t, r.Cases[1])
	for _, c := range []caseRead{host, bridge} {
		off := math.Abs(c.MeasuredOverCeiling - 1)
		figure(t, c.name+": measured ÷ ceiling", fmt.Sprintf("1 ± %.2f", bridgeMeasuredTolerance), c.MeasuredOverCeiling, off <= bridgeMeasuredTolerance)
		if off > bridgeMeasuredTolerance {
			t.Errorf("%s: measured %.3f/s ÷ ceiling %.3f/s = %.3f, want 1 ± %.2f", c.name, c.Measured, c.Ceiling, c.MeasuredOverCeiling, bridgeMeasuredTolerance)
		}
		if want := "slots:runner:n8n-lab-worker-1"; c.Binding != want || c.effective != 5 || c.taskSource != "redis" {
			t.Errorf("%s: binding %q at effective concurrency %d, task time by %q; want %q at 5 (runner limit 5 under worker 15), by redis (Little's law)",
				c.name, c.Binding, c.effective, c.taskSource, want)
		}
	}
	// Each ceiling is 5 ÷ its case's measured task time, which other work
	// on the host moves between the two back-to-back cases far more than
	// the bridge does (a few ms of a 1.05 s task): it is logged, and each
	// network's ceiling is held to what loadctl measured on it.
	t.Logf("bridge ceiling %.3f/s ÷ host ceiling %.3f/s = %.3f", bridge.Ceiling, host.Ceiling, bridge.Ceiling/host.Ceiling)
}

// bridgeSpec is runner-limit.yaml's limit-5 case at its last step, the
// exporter's windows bridgeWindow and no probe, as two cases: host, then
// bridge.
func bridgeSpec(t *testing.T) *experiment.Spec {
	t.Helper()
	s, err := experiment.LoadFile("experiments/runner-limit.yaml")
	if err == nil {
		err = s.OnlyCases([]string{"limit-5"})
	}
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	s.Name, s.Seed, s.Load = "bridge-runner-limit", nil, s.CaseLoad(c)
	s.Load.VUs = s.Load.VUs[len(s.Load.VUs)-1:]
	s.Load.Step = experiment.Duration(bridgeWindow)
	maps.Copy(s.Env, c.Env)
	maps.Copy(s.Env, map[string]string{"LAB_PROBE": "0", "LAB_WINDOW": fmt.Sprintf("%.0fs", bridgeWindow.Seconds())})
	c.Load, c.Seed, c.Expect.MVAWithin = nil, nil, nil // one step: no one-request latency
	c.Expect.MeasuredOverCeiling = &experiment.Range{Min: 1 - bridgeMeasuredTolerance, Max: 1 + bridgeMeasuredTolerance}
	s.Cases = nil
	for _, network := range []string{"host", "bridge"} {
		n := c
		n.Name, n.Env = network, map[string]string{"LAB_NETWORK": network, "LAB_RUNNER_TARGET": "own"}
		s.Cases = append(s.Cases, n)
	}
	return s
}

func writeSpec(t *testing.T, s *experiment.Spec, path string) {
	t.Helper()
	b, err := yaml.Marshal(s)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err == nil {
		_, err = experiment.LoadFile(path)
	}
	if err != nil {
		t.Fatalf("spec %s: %v", path, err)
	}
}

// caseRead is a case's model at its step, the effective concurrency the
// exporter published then, and the source of its task time.
type caseRead struct {
	*experiment.StepModel
	name, taskSource string
	effective        int
}

// caseModel reads a case's one step, and logs it with the MVA and the
// cores the exporter left to n8n on the host (under 2 while other work
// runs beside the lab, which slows the tasks).
func caseModel(t *testing.T, c experiment.CaseResult) caseRead {
	t.Helper()
	m := c.Model
	if c.Error != "" || m == nil || m.Source != experiment.FromStep || m.Ceiling <= 0 || len(c.Sweep.Steps) != 1 {
		t.Fatalf("case %s: no ceiling read at its one step's end (error %q)", c.Name, c.Error)
	}
	cmp := comparison.Of(c.Sweep.Steps[0]) // read, as m's source says
	cores := math.NaN()
	if cmp.Prediction != nil {
		for _, s := range cmp.Prediction.Stations {
			if s.Name == "cpu:host" {
				cores = s.Servers
			}
		}
	}
	t.Logf("%s: %s measured %.3f/s, ceiling %.3f/s set by %s, measured ÷ ceiling %.3f, MVA %.3f/s; task %.3f s by %s; cpu:host %.2f cores; failed %d of %d",
		c.Name, m.Step.Label(), m.Measured, m.Ceiling, m.Binding, m.MeasuredOverCeiling, m.MVA,
		c.Predicted.TaskSeconds, c.Predicted.TaskSource, cores, c.Failures.Failed, c.Failures.Requests)
	return caseRead{StepModel: m, name: c.Name, taskSource: c.Predicted.TaskSource, effective: cmp.Effective}
}
