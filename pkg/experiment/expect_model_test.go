package experiment

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// modelStep is a closed-loop step with the comparison pkg/comparison
// would attach: c nil attaches none.
func modelStep(vus int, tput float64, c *comparison.Comparison) loadgen.StepResult {
	s := loadgen.StepResult{Load: loadgen.Step{VUs: vus}, Figures: loadgen.Summary{Throughput: tput}}
	if c != nil {
		s.Exporter, _ = json.Marshal(c)
	}
	return s
}

func mva(ceiling, pred float64) *comparison.Comparison {
	return &comparison.Comparison{Ceiling: ceiling, Ratio: 0, Binding: "cpu:host", SlotCeiling: 180,
		Prediction: &comparison.Prediction{Model: comparison.ModelMVA, Throughput: pred, LatencySeconds: 0.1, LatencyFromVUs: 1,
			Stations: []comparison.Station{{Name: "cpu:host", Servers: 2, Demand: 0.1, Spread: true}, {Name: "slots:worker:w1", Servers: 10, Demand: 0.04}}}}
}

// cpuCase swept 1, 4 and 8 VUs against a 20/s host-CPU ceiling: the best
// step is 4 VUs at 19/s; the MVA is off by +5.3 %, −2.6 % and +1.1 %.
func cpuCase() CaseResult {
	return CaseResult{Sweep: &loadgen.Result{Steps: []loadgen.StepResult{
		modelStep(1, 9.5, mva(20, 10)), modelStep(4, 19, mva(20, 18.5)), modelStep(8, 18.8, mva(20, 19)),
	}}, Predicted: &Prediction{Ceiling: 21, Binding: "slots:worker:w1"}}
}

func TestModelChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expect Expect
		passed bool
		got    string
		figure float64 // NaN: none
	}{
		{"measured ÷ ceiling at the best step", Expect{MeasuredOverCeiling: &Range{0.9, 1.1}}, true, "0.950 at 4 VU (19.000/s ÷ 20.000/s, read at the step's end)", 0.95},
		{"measured ÷ ceiling too far, with what each resource allowed", Expect{MeasuredOverCeiling: &Range{0.97, 1.03}}, false,
			"0.950 at 4 VU (19.000/s ÷ 20.000/s, read at the step's end); resources: cpu:host 2 × 100.0 ms → 20.000/s, slots:worker:w1 10 × 40.0 ms → 250.000/s", 0.95},
		{"cpu binds", Expect{BindingKind: "cpu"}, true, "cpu:host at 4 VU", math.NaN()},
		{"slots do not", Expect{BindingKind: "slots"}, false, "cpu:host at 4 VU", math.NaN()},
		{"MVA within 6 %", Expect{MVAWithin: ptr(0.06)}, true, "worst +5.3% at 1 VU (predicted 10.000/s, measured 9.500/s; one-request latency 0.100 s from 1 VU, longest hold 0.050 s at cpu:host) over 3 steps", 10/9.5 - 1},
		{"MVA not within 5 %", Expect{MVAWithin: ptr(0.05)}, false, "worst +5.3% at 1 VU", 10/9.5 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cpuCase()
			got := tc.expect.Evaluate(&c)
			if len(got) != 1 || got[0].Passed != tc.passed || !strings.Contains(got[0].Got, tc.got) {
				t.Fatalf("checks %+v, want passed=%v with %q", got, tc.passed, tc.got)
			}
			if f := got[0].Figure; (f == nil) != math.IsNaN(tc.figure) || (f != nil && math.Abs(*f-tc.figure) > 1e-9) {
				t.Errorf("figure %v, want %v", f, tc.figure)
			}
		})
	}
}

// A step whose exporter read failed takes its bound from the read after
// the load, and says so; it has no MVA, which fails that check.
func TestModelChecksFallBackAndFail(t *testing.T) {
	c := cpuCase()
	c.Sweep.Steps[1] = modelStep(4, 19, &comparison.Comparison{Error: "scrape http://x/metrics: HTTP 500"})
	got := Expect{MeasuredOverCeiling: &Range{0.8, 1.2}, BindingKind: "slots", MVAWithin: ptr(0.5)}.Evaluate(&c)
	if !got[0].Passed || !strings.Contains(got[0].Got, "0.905 at 4 VU (19.000/s ÷ 21.000/s, read after load)") {
		t.Errorf("measured ÷ ceiling: %+v", got[0])
	}
	if !got[1].Passed || got[1].Got != "slots:worker:w1 at 4 VU" {
		t.Errorf("binding kind: %+v", got[1])
	}
	if got[2].Passed || !strings.Contains(got[2].Got, "4 VU: no exporter read") {
		t.Errorf("mva: %+v", got[2])
	}
	c = cpuCase()
	c.Sweep.Steps[0] = modelStep(1, 9.5, &comparison.Comparison{Ceiling: 20, MVAError: "no resource has a known demand yet",
		Prediction: &comparison.Prediction{Model: comparison.ModelSlots, Throughput: 10}})
	c.Sweep.Steps[2] = modelStep(8, 0, mva(20, 19))
	if got := (Expect{MVAWithin: ptr(0.5)}).Evaluate(&c)[0]; got.Passed ||
		got.Got != "1 VU: no MVA (no resource has a known demand yet); 8 VU: nothing passed" {
		t.Errorf("mva: %+v", got)
	}
	empty := CaseResult{}
	for _, ch := range (Expect{MeasuredOverCeiling: &Range{0.1, 10}, BindingKind: "cpu", MVAWithin: ptr(1.0)}).Evaluate(&empty) {
		if ch.Passed {
			t.Errorf("check %s passed on a case that never ran: %+v", ch.Name, ch)
		}
	}
}

// The figures at the measured step: the bound read at its end and the MVA.
func TestStepModelOf(t *testing.T) {
	c := cpuCase()
	c.Sweep.Steps[1].Exporter, _ = json.Marshal(&comparison.Comparison{Ceiling: 20, Binding: "cpu:host", SlotCeiling: 180,
		Prediction: &comparison.Prediction{Model: comparison.ModelMVA, Throughput: 18.5, ResponseSeconds: 0.21, LatencySeconds: 0.06}})
	m := StepModelOf(c.Sweep.Steps[1], c.Predicted)
	want := StepModel{Step: loadgen.Step{VUs: 4}, Measured: 19, Ceiling: 20, MeasuredOverCeiling: 0.95, Binding: "cpu:host", SlotCeiling: 180,
		MVA: 18.5, MVAOverMeasured: 18.5 / 19, MVAResponse: 0.21, OneRequestLatency: 0.06, Source: FromStep}
	if m == nil || *m != want {
		t.Errorf("step model %+v\nwant %+v", m, want)
	}
	if m := StepModelOf(modelStep(4, 19, nil), nil); m != nil {
		t.Errorf("no read at all: %+v", m)
	}
}

// model_at: last reads the most loaded step; a bad value is refused.
func TestModelChecksAtTheLastStep(t *testing.T) {
	c := cpuCase()
	got := Expect{MeasuredOverCeiling: &Range{0.9, 1.1}, ModelAt: "last"}.Evaluate(&c)
	if len(got) != 1 || !strings.Contains(got[0].Got, "at 8 VU") || !strings.Contains(got[0].Want, "the last step") {
		t.Errorf("checks %+v, want the 8-VU step read", got)
	}
	if err := (Expect{ModelAt: "first"}).validate(); err == nil || !strings.Contains(err.Error(), "model_at") {
		t.Errorf("model_at first: %v, want an error naming model_at", err)
	}
}

// A saved result's model is re-read at the step its checks read: the last
// for model_at: last, where the best step (4 VU) would say otherwise.
func TestReadJSONKeepsTheCheckedStep(t *testing.T) {
	for at, vus := range map[string]int{"last": 8, "": 4} {
		c := cpuCase()
		c.ModelAt = at
		var buf bytes.Buffer
		if err := WriteJSON(&buf, &Result{Schema: SchemaVersion, Cases: []CaseResult{c}}); err != nil {
			t.Fatal(err)
		}
		r, err := ReadJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if m := r.Cases[0].Model; m == nil || m.Step.VUs != vus {
			t.Errorf("model_at %q: model %+v, want the %d-VU step", at, m, vus)
		}
	}
}
