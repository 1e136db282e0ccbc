package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
)

// fakeSpec is a small experiment against fakeLab: two runner limits, then
// a memory-limited case in which the fourth concurrent task passes the
// pretend limit.
func fakeSpec(t *testing.T) *Spec {
	t.Helper()
	hook, err := filepath.Abs("testdata/fake-apply.sh")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(strings.NewReader(`
name: fake-runner-limit
seed: {source: "made up for the test", columns: [req/s]}
apply: {kind: command, command: [bash, ` + hook + `], timeout: 20s}
target: {body: {sleep_ms: 50}, checks: ["ok==true"], expect_status: [200], timeout: 5s}
load: {vus: [6], step: 1s, warmup: 200ms}
settle: {timeout: 10s, poll: 50ms}
sample_every: 100ms
env: {LAB_PROBE: "1"}
cases:
  - name: limit-2
    env: {LAB_RUNNER_LIMITS: "2"}
    wait: {runner_limits: [2], workers: 1}
    expect: {bottleneck: runner, fail_rate_max: 0, oom: false}
    seed: {req/s: "0.66"}
  - name: limit-4
    env: {LAB_RUNNER_LIMITS: "4"}
    wait: {runner_limits: [4], worker_concurrency: [15]}
    expect: {bottleneck: worker}
  - name: oom
    env: {LAB_RUNNER_LIMITS: "4", LAB_RUNNER_MEMORY: "350"}
    wait: {runner_limits: [4]}
    expect: {oom: true, runner_ws_rise_min_mib: 150, worker_ws_rise_max_mib: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunAgainstFakeLab(t *testing.T) {
	newFakeLab(t, 50_000_000) // 50 ms per task
	spec := fakeSpec(t)
	var log []string
	r := &Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", nil), Log: func(l string) { log = append(log, l) }}
	res := r.Run(context.Background())
	if len(res.Cases) != 3 {
		t.Fatalf("ran %d cases, want 3", len(res.Cases))
	}
	for i, limit := range []int{2, 4, 4} {
		c := res.Cases[i]
		if c.Error != "" {
			t.Fatalf("case %s: %s", c.Name, c.Error)
		}
		if c.Settled == nil || c.Settled.RunnerLimits[0] != limit {
			t.Errorf("case %s settled on %+v, want runner limit %d", c.Name, c.Settled, limit)
		}
		// The fake runner never holds more than <limit> tasks, so the probe
		// samples can never show more, and each task sleeps the delay.
		if c.Probe == nil || c.Probe.RunningMax > float64(limit) || c.Probe.Samples < 2 {
			t.Errorf("case %s probe figures %+v, want ≤ %d running over several samples", c.Name, c.Probe, limit)
		}
		if c.Probe != nil && (c.Probe.Tasks <= 0 || c.Probe.MeanTaskSeconds < 0.05) {
			t.Errorf("case %s mean task %.3fs over %v tasks, want at least the 50 ms delay", c.Name, c.Probe.MeanTaskSeconds, c.Probe.Tasks)
		}
		if c.Predicted == nil || c.Predicted.TaskSource != "probe" || c.Predicted.JobSeconds == 99 {
			t.Errorf("case %s prediction %+v: want the used (probe) service time, not the largest", c.Name, c.Predicted)
		}
		if c.Measured.Ceiling <= 0 || c.Sweep == nil {
			t.Errorf("case %s measured nothing: %+v", c.Name, c.Measured)
		}
		if c.Env["LAB_PROBE"] != "1" {
			t.Errorf("case %s env %v lacks the spec's base env", c.Name, c.Env)
		}
	}
	checkFakeOutcomes(t, res)
	if !strings.Contains(strings.Join(log, "\n"), "settled after") {
		t.Errorf("log lacks the settle line:\n%s", strings.Join(log, "\n"))
	}
}

// checkFakeOutcomes: limit-2 passes, limit-4 fails its bottleneck check
// (the fake exporter says runner), and the OOM case names the kill and its
// failed requests.
func checkFakeOutcomes(t *testing.T, res *Result) {
	t.Helper()
	c2, c4, oom := res.Cases[0], res.Cases[1], res.Cases[2]
	if !c2.Passed || c2.Failures.Failed != 0 {
		t.Errorf("limit-2 should pass: %+v, failures %+v", c2.Checks, c2.Failures)
	}
	if c4.Passed || len(c4.Checks) != 1 || c4.Checks[0].Got != "runner" {
		t.Errorf("limit-4 should fail its bottleneck check: %+v", c4.Checks)
	}
	if killed := OOMKilled(oom.Memory); len(killed) != 1 || killed[0] != "n8n-lab-runner-1-1" {
		t.Errorf("OOM case named %v, want the runner container", killed)
	}
	if oom.Failures.Failed == 0 || oom.Failures.ByKind["status"] == 0 {
		t.Errorf("OOM case failures %+v, want failed requests by status", oom.Failures)
	}
	if !oom.Passed {
		t.Errorf("OOM case checks: %+v", oom.Checks)
	}
	if res.Passed {
		t.Error("the run passed although limit-4 failed a check")
	}
}

func TestApplyFailureIsRecordedAndTheNextCaseRuns(t *testing.T) {
	newFakeLab(t, 10_000_000)
	spec := fakeSpec(t)
	spec.Cases = spec.Cases[:1]
	t.Setenv("FAKE_APPLY_FAIL", "1")
	r := &Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", nil)}
	res := r.Run(context.Background())
	c := res.Cases[0]
	if c.Passed || !strings.Contains(c.Error, "asked to fail") || !strings.Contains(c.Error, "exit status 3") {
		t.Errorf("case error %q: want the hook's exit status and stderr tail", c.Error)
	}
}

func TestSettleTimeoutNamesTheDifference(t *testing.T) {
	newFakeLab(t, 10_000_000)
	spec := fakeSpec(t)
	spec.Cases = spec.Cases[:1]
	spec.Cases[0].Wait.RunnerLimits = []int{7} // the hook sets 2: never reached
	// The first scrape must answer inside the timeout for the error to
	// name the difference: 2 s keeps that true on a loaded machine.
	spec.Settle.Timeout = Duration(2 * time.Second)
	r := &Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", nil)}
	c := r.Run(context.Background()).Cases[0]
	if !strings.Contains(c.Error, "runner limits [2], want [7]") {
		t.Errorf("error %q does not say what differed", c.Error)
	}
	if c.Sweep != nil {
		t.Error("load ran although the shape never settled")
	}
}

// Against the fake lab the sweep reads the exporter after every step: each
// step gets its MVA prediction (the latency from the one-VU step), the case
// its figures at the measured step, and the model checks pass: the runner's
// slots bind and the two 50 ms slots give about 40/s. The bounds are loose:
// timings on a shared machine are noise, and the checks' arithmetic has
// its own tests.
func TestModelChecksAgainstFakeLab(t *testing.T) {
	newFakeLab(t, 50_000_000)
	spec := fakeSpec(t)
	spec.Cases = []Case{{Name: "curve", Env: map[string]string{"LAB_RUNNER_LIMITS": "2"}, Wait: Shape{RunnerLimits: []int{2}},
		Load:   &Load{VUs: []int{1, 4}},
		Expect: Expect{MeasuredOverCeiling: &Range{0.5, 1.5}, BindingKind: "slots", MVAWithin: ptr(0.5)}}}
	c := (&Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", nil)}).Run(context.Background()).Cases[0]
	if c.Error != "" || !c.Passed {
		t.Fatalf("case %s: error %q, checks %+v", c.Name, c.Error, c.Checks)
	}
	for _, ch := range c.Checks {
		t.Logf("%s: %s", ch.Name, ch.Got)
	}
	if len(c.Checks) != 3 || !strings.Contains(c.Checks[1].Got, "slots:runner:n8n-lab-worker-1") {
		t.Errorf("checks %+v", c.Checks)
	}
	for _, s := range c.Sweep.Steps {
		cmp := comparison.Of(s)
		if cmp == nil || cmp.Prediction == nil || cmp.Prediction.Model != comparison.ModelMVA || cmp.Prediction.LatencyFromVUs != 1 {
			t.Errorf("step %s: %+v", s.Load.Label(), cmp)
		}
	}
	if c.Sweep.Settings.Exporter == "" {
		t.Error("the sweep does not record the exporter it read")
	}
	m := c.Model
	if m == nil || m.Source != FromStep || m.Binding != "slots:runner:n8n-lab-worker-1" || m.Ceiling <= 0 || m.MVA <= 0 ||
		m.Step != c.Measured.Step || m.Measured != c.Measured.Ceiling {
		t.Errorf("model at the measured step %+v, measured %+v", m, c.Measured)
	}
}
