package experiment

import (
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

func ptr[T any](v T) *T { return &v }

// sampleCase is a finished case as the runner would record it: runner
// limit 5, 1.06 s tasks, a runner that rose by 1.4 GiB and one OOM kill,
// the runner slots binding and the MVA 2 % above measured.
func sampleCase() CaseResult {
	return CaseResult{
		Name:     "limit-5",
		Settled:  &Topology{WorkerConcurrency: []int{15, 15}, RunnerLimits: []int{5}, Workers: 2, WorkersWithoutRunner: 1, WithoutRunner: []string{"n8n-lab-worker-2"}},
		Measured: Measured{Ceiling: 4.60, From: "knee", Step: loadgen.Step{VUs: 20}},
		Predicted: &Prediction{Ceiling: 4.717, ForLoad: 4.717, Bottleneck: "runner", Binding: "slots:runner:n8n-lab-worker-1", SlotCeiling: 4.717,
			TaskSeconds: 1.06, TaskSource: "probe"},
		Model: &StepModel{Step: loadgen.Step{VUs: 20}, Measured: 4.60, Ceiling: 4.717, MeasuredOverCeiling: 4.60 / 4.717,
			Binding: "slots:runner:n8n-lab-worker-1", SlotCeiling: 4.717, MVA: 4.70, MVAOverMeasured: 4.70 / 4.60, MVAResponse: 4.26,
			OneRequestLatency: 1.08, Source: FromStep},
		Failures: Failures{Requests: 200, Failed: 10, Rate: 0.05, ByKind: map[string]int64{"status": 10}},
		Memory: []ContainerMemory{
			{Container: "n8n-lab-runner-1-1", Role: "runner", BaselineBytes: 85 * mib, PeakBytes: 1519 * mib, OOMKills: 1},
			{Container: "n8n-lab-worker-1", Role: "worker", BaselineBytes: 200 * mib, PeakBytes: 230 * mib},
		},
	}
}

func TestExpectEvaluate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expect Expect
		passed []bool
		got    string
	}{
		{"within holds at 2.5 %", Expect{Within: ptr(0.05)}, []bool{true}, "-2.5%"},
		{"within fails at 2 %", Expect{Within: ptr(0.02)}, []bool{false}, "-2.5%"},
		{"bottleneck", Expect{Bottleneck: "runner"}, []bool{true}, "runner"},
		{"wrong bottleneck", Expect{Bottleneck: "worker"}, []bool{false}, "runner"},
		{"fail rate bounds", Expect{FailRateMin: ptr(0.03), FailRateMax: ptr(0.04)}, []bool{true, false}, "5.0% (10 of 200)"},
		{"runner rise", Expect{RunnerWSRiseMinMiB: ptr(1200.0)}, []bool{true}, "1434 MiB (n8n-lab-runner-1-1)"},
		{"runner rise too small", Expect{RunnerWSRiseMinMiB: ptr(1500.0)}, []bool{false}, "1434 MiB"},
		{"worker flat", Expect{WorkerWSRiseMaxMiB: ptr(20.0)}, []bool{false}, "30 MiB (n8n-lab-worker-1)"},
		{"oom named with its cost", Expect{OOM: ptr(true)}, []bool{true}, "[n8n-lab-runner-1-1], 10 failed requests"},
		{"no oom wanted", Expect{OOM: ptr(false)}, []bool{false}, "n8n-lab-runner-1-1"},
		{"worker without runner", Expect{WorkersWithoutRunner: ptr(1)}, []bool{true}, "1 [n8n-lab-worker-2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sampleCase()
			got := tc.expect.Evaluate(&c)
			if len(got) != len(tc.passed) {
				t.Fatalf("%d checks, want %d: %+v", len(got), len(tc.passed), got)
			}
			for i, ch := range got {
				if ch.Passed != tc.passed[i] {
					t.Errorf("check %s passed=%v, want %v (%+v)", ch.Name, ch.Passed, tc.passed[i], ch)
				}
			}
			if !strings.Contains(got[0].Got, tc.got) {
				t.Errorf("got %q, want it to contain %q", got[0].Got, tc.got)
			}
		})
	}
}

// Without a prediction, a run or a container, a check fails rather than
// passing on nothing.
func TestExpectFailsOnMissingData(t *testing.T) {
	c := CaseResult{}
	e := Expect{Within: ptr(0.5), Bottleneck: "runner", FailRateMax: ptr(1.0), RunnerWSRiseMinMiB: ptr(0.0),
		WorkerWSRiseMaxMiB: ptr(1e9), WorkersWithoutRunner: ptr(0)}
	for _, ch := range e.Evaluate(&c) {
		if ch.Passed {
			t.Errorf("check %s passed on an empty case: %+v", ch.Name, ch)
		}
	}
}

func TestShapeMatches(t *testing.T) {
	top := Topology{WorkerConcurrency: []int{15}, RunnerLimits: []int{3, 5}, Workers: 1}
	if ok, diff := (Shape{RunnerLimits: []int{5, 3}, Workers: ptr(1)}).Matches(top); !ok {
		t.Errorf("order of limits must not matter: %s", diff)
	}
	ok, diff := (Shape{RunnerLimits: []int{5}, WorkerConcurrency: []int{8}, WorkersWithoutRunner: ptr(1)}).Matches(top)
	if ok || !strings.Contains(diff, "runner limits [3 5], want [5]") || !strings.Contains(diff, "worker concurrency [15], want [8]") ||
		!strings.Contains(diff, "0 workers without runner, want 1") {
		t.Errorf("diff %q", diff)
	}
	if ok, _ := (Shape{}).Matches(Topology{}); !ok {
		t.Error("an empty shape waits for nothing")
	}
}
