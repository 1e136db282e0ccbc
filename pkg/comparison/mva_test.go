package comparison

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// closedStep is a closed-loop step that measured a mean response over
// passing requests and a throughput.
func closedStep(i, vus int, mean, tput float64) loadgen.StepResult {
	return loadgen.StepResult{Index: i, Load: loadgen.Step{VUs: vus},
		Figures: loadgen.Summary{Throughput: tput, Latency: loadgen.Latency{Count: 100, Mean: mean}}}
}

func networkOf(res []resource) capacity.Network {
	return capacity.Network{Stations: boundsOf(res).Stations()}
}

func attach(t *testing.T, h *Hook, sr loadgen.StepResult) *Comparison {
	t.Helper()
	h.Attach(context.Background(), &sr)
	c := Of(sr)
	if c == nil || c.Error != "" {
		t.Fatalf("step %d: comparison %+v", sr.Index+1, c)
	}
	return c
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The one-request latency comes from the lowest step so far: the first
// (two VUs, solved through the wait main's one core already has), and
// later a lower one (one VU: its mean response). Every step runs the MVA
// over the resources read at its own end.
func TestMVAPredictionFromTheLowestStep(t *testing.T) {
	srv := newPageServer(t, exporterPage(10, 0.035, 0.01, cpuBound))
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	two := attach(t, h, closedStep(0, 2, 0.06, 33))
	l, _ := capacity.LatencyAlone(networkOf(cpuBound), 2, 0.06)
	if p := two.Prediction; p == nil || p.Model != ModelMVA || p.LatencyFromVUs != 2 || !near(p.LatencySeconds, l) || l >= 0.06 {
		t.Fatalf("two VUs: %+v, want the latency %v solved from this step, below its response", p, l)
	}
	if two.Binding != "cpu:host" || two.Prediction.Binding != "cpu:host" || !near(two.Ceiling, 2/0.034) || !near(two.SlotCeiling, 15/0.035) {
		t.Errorf("bound: %+v", two)
	}

	// Under load the demands grow: the exporter's new figures are used.
	heavier := []resource{cpuBound[0], cpuBound[1], {"cpu:host", 2, 0.04}, {"cpu:main", 1, 0.014}}
	srv.set(exporterPage(10, 0.035, 0.01, heavier))
	four := attach(t, h, closedStep(1, 4, 0.09, 45))
	want, _ := capacity.Overlapping(networkOf(heavier), l, 4)
	if p := four.Prediction; p == nil || !near(p.Throughput, want[3].Throughput) || !near(p.ResponseSeconds, want[3].Response) ||
		p.LatencyFromVUs != 2 || p.LargestQueue != want[3].Largest || p.QueueWait != 0 {
		t.Errorf("four VUs: %+v, want %+v", p, want[3])
	}
	if !near(four.Ratio, 45/(2/0.04)) {
		t.Errorf("measured ÷ ceiling %v", four.Ratio)
	}

	// One VU, after four: the lower step gives the latency from now on.
	one := attach(t, h, closedStep(2, 1, 0.05, 19.6))
	if p := one.Prediction; p == nil || p.Throughput != 1/0.05 || p.LatencySeconds != 0.05 || p.LatencyFromVUs != 1 {
		t.Errorf("one VU: %+v, want 1/0.05 from its own latency", p)
	}
	if p := attach(t, h, closedStep(3, 20, 0.3, 50)).Prediction; p == nil || p.LatencyFromVUs != 1 || p.QueueWait != 5 {
		t.Errorf("twenty VUs: %+v, want the latency from one VU and five jobs waiting", p)
	}
}

// A lowest step with no passing request gives no latency: that step has
// no MVA (and says why), and the next step's latency serves.
func TestMVAWaitsForAPassingStep(t *testing.T) {
	srv := newPageServer(t, exporterPage(10, 0.035, 0.01, cpuBound))
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	failed := closedStep(0, 1, 0, 0)
	failed.Figures.Latency = loadgen.Latency{}
	c := attach(t, h, failed)
	if c.Prediction != nil || !strings.Contains(c.MVAError, "no one-request latency yet") {
		t.Fatalf("failed step: prediction %+v, MVA error %q", c.Prediction, c.MVAError)
	}
	if p := attach(t, h, closedStep(1, 3, 0.07, 40)).Prediction; p == nil || p.LatencyFromVUs != 3 {
		t.Errorf("next step: %+v, want its own latency", p)
	}
}

// A response shorter than a station's hold (a worker slot held while n8n
// saves the result) cannot be a latency: the longest hold serves.
func TestMVALatencyNeverBelowTheLongestHold(t *testing.T) {
	slow := []resource{{"slots:worker:w1", 15, 1.1}, {"slots:runner:w1", 5, 1.02}, {"cpu:host", 2, 0.03}}
	srv := newPageServer(t, exporterPage(5, 1.1, 1.02, slow))
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	p := attach(t, h, closedStep(0, 1, 1.05, 0.95)).Prediction
	if p == nil || p.LatencySeconds != 1.1 || p.Throughput != 1/1.1 || p.Binding != "slots:runner:w1" {
		t.Errorf("prediction %+v, want the worker slot's 1.1 s hold as the latency", p)
	}
}

// Under load a worker slot holds its job while the job waits for a core
// or the worker's thread: at 8 VUs 0.45 s, against 0.2 s solved alone at
// 2 VUs.
// The 8-VU MVA holds that slot 0.2 s, not 0.45 s, which would lift the
// latency to 0.45 s and count the waits in it twice; the stations it
// records say so.
func TestMVAHoldsASlotAtMostTheLatency(t *testing.T) {
	light := []resource{{"slots:worker:w1", 15, 0.2}, {"slots:runner:w1", 20, 0.08}, {"cpu:host", 2, 0.2}, {"cpu:w1/n8n", 0.94, 0.065}}
	srv := newPageServer(t, exporterPage(20, 0.2, 0.08, light))
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	l := attach(t, h, closedStep(0, 2, 0.21, 9.5)).Prediction.LatencySeconds
	loaded := []resource{{"slots:worker:w1", 15, 0.45}, {"slots:runner:w1", 20, 0.4}, {"cpu:host", 2, 0.2}, {"cpu:w1/n8n", 0.94, 0.065}}
	srv.set(exporterPage(20, 0.45, 0.4, loaded))
	c := attach(t, h, closedStep(1, 8, 0.83, 9.6))
	p := c.Prediction
	curve, _ := capacity.Overlapping(networkOf(loaded).HeldAtMost(l), l, 8)
	want, _ := heldAtCeiling(curve[7], c.Ceiling)
	if p == nil || p.LatencySeconds != l || !near(p.Throughput, want.Throughput) {
		t.Fatalf("8 VUs: %+v, want latency %v and %v/s", p, l, want.Throughput)
	}
	for _, st := range p.Stations {
		if strings.HasPrefix(st.Name, "slots:") && st.Demand > l {
			t.Errorf("station %s held %v s, over the latency %v", st.Name, st.Demand, l)
		}
	}
	if over, _ := capacity.Overlapping(networkOf(loaded), 0.45, 8); p.Throughput <= over[7].Throughput*1.02 {
		t.Errorf("8 VUs: %v/s, want over 2 %% above the %v/s of a latency lifted to the slot's hold", p.Throughput, over[7].Throughput)
	}
}

// A sweep against a local server whose two "cores" each hold a request
// 20 ms, with an exporter publishing that as cpu:host: every step gets an
// MVA prediction with the first step's mean latency, which at one VU is
// 1 / that latency, and beyond stays under both asymptotes and rises with
// the VUs. (How close it comes to the measured figures is the lab's to
// say: timings on a shared machine are noise.)
func TestMVAAgainstARealSweep(t *testing.T) {
	app := httptest.NewServer(testtool.SlotHandler(2, 20*time.Millisecond))
	defer app.Close()
	srv := newPageServer(t, exporterPage(10, 0.02, 0.02, []resource{{"slots:worker:w1", 15, 0.02}, {"cpu:host", 2, 0.02}}))
	sw := &loadgen.Sweep{
		Plan:   loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{1, 2, 4, 8}), Step: 600 * time.Millisecond, Warmup: 100 * time.Millisecond},
		Target: &loadgen.Target{URLs: []string{app.URL}, Checks: loadgen.Checks{Status: []int{200}}, Client: loadgen.NewClient(5*time.Second, 8)},
		Hook:   &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}},
	}
	res, err := sw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	latency := math.Max(res.Steps[0].Figures.Latency.Mean, 0.02)
	last := 0.0
	for _, s := range res.Steps {
		c := Of(s)
		if c == nil || c.Prediction == nil || c.Prediction.Model != ModelMVA || c.Prediction.LatencyFromVUs != 1 || c.Prediction.LatencySeconds != latency {
			t.Fatalf("step %s: %+v", s.Load.Label(), c)
		}
		x := c.Prediction.Throughput
		if x <= last || x > float64(s.Load.VUs)/latency*(1+1e-12) || x > 2/0.02*(1+1e-12) {
			t.Errorf("step %s: predicted %v/s after %v/s, one-request latency %v", s.Load.Label(), x, last, latency)
		}
		last = x
	}
	if x := Of(res.Steps[0]).Prediction.Throughput; x != 1/latency {
		t.Errorf("one VU: predicted %v, want 1 / its mean latency %v", x, latency)
	}
	var obj struct {
		Prediction map[string]any `json:"prediction"`
	}
	if err := json.Unmarshal(res.Steps[3].Exporter, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "response_seconds", "binding", "largest_queue", "one_request_latency_seconds", "latency_from_vus"} {
		if _, ok := obj.Prediction[k]; !ok {
			t.Errorf("prediction object lacks %q: %s", k, res.Steps[3].Exporter)
		}
	}
}

// Without worker series (n8n in single mode) the bound and the MVA still
// come from the resources: the ceiling is the lowest, no slot side.
func TestResourcesWithoutWorkers(t *testing.T) {
	page, err := os.ReadFile("../snapshot/testdata/resources.prom")
	if err != nil {
		t.Fatal(err)
	}
	srv := newPageServer(t, string(page))
	c := attach(t, &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}, closedStep(0, 1, 0.1, 9.8))
	if !near(c.Ceiling, 2/0.034) || c.Binding != "cpu:host" || c.Bottleneck != "" || c.Prediction == nil ||
		c.Prediction.Model != ModelMVA || c.Prediction.Throughput != 1/0.1 || c.Prediction.QueueWait != 0 {
		t.Errorf("comparison %+v, prediction %+v", c, c.Prediction)
	}
}

// The host's CPU per execution may exceed one request's latency: its cores
// run n8n's processes side by side. A 1-VU step of 49 ms against 64 ms of
// host CPU on two cores keeps its own latency, so the prediction at one VU
// is what was measured.
func TestMVALatencySpreadsHostCPU(t *testing.T) {
	res := []resource{{"slots:worker:w1", 15, 0.011}, {"slots:runner:w1", 10, 0.005}, {"cpu:host", 2, 0.064}}
	srv := newPageServer(t, exporterPage(10, 0.011, 0.005, res))
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	p := attach(t, h, closedStep(0, 1, 0.049, 20.4)).Prediction
	if p == nil || p.LatencySeconds != 0.049 || math.Abs(p.Throughput-1/0.049) > 1e-9 || p.Binding != "cpu:host" {
		t.Errorf("prediction %+v, want the step's 49 ms as the latency and 1/0.049 at one VU", p)
	}
}

// Main's thread in regular mode, as one run at 30 VUs read it: it ran
// 0.43 of a core (the share of its runnable time it got) at 23.4 ms an
// execution, while the host's 1.93 cores spent 98 ms. The MVA holds the
// thread at its 0.94 alone and lets the host saturate (19.7/s); the
// prediction is held at the published ceiling, the thread's 18.4/s, with
// the response a closed loop of 30 VUs has there, and names the thread.
func TestMVAHeldAtTheCeiling(t *testing.T) {
	res := []resource{{"slots:worker:w1", 15, 0.06}, {"slots:runner:w1", 10, 0.03}, {"cpu:host", 1.93, 0.098}, {"cpu:main/n8n", 0.43, 0.0234}}
	srv := newPageServer(t, exporterPage(10, 0.06, 0.03, res)+"n8n_resource_alone_servers{resource=\"cpu:main/n8n\"} 0.94\n")
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	if p := attach(t, h, closedStep(0, 1, 0.075, 13.3)).Prediction; p == nil || p.HeldAtCeiling || !near(p.Throughput, 1/0.075) {
		t.Fatalf("one VU: %+v, want its own latency, not held", p)
	}
	c := attach(t, h, closedStep(1, 30, 1.7, 17.9))
	ceiling := 0.43 / 0.0234
	free, _ := capacity.Overlapping(networkOf([]resource{res[0], res[1], res[2], {"cpu:main/n8n", 0.94, 0.0234}}), 0.075, 30)
	if !near(c.Ceiling, ceiling) || free[29].Throughput <= ceiling {
		t.Fatalf("ceiling %v, MVA unheld %v: want the MVA above the thread's %v", c.Ceiling, free[29].Throughput, ceiling)
	}
	if p := c.Prediction; p == nil || !p.HeldAtCeiling || !near(p.Throughput, ceiling) || !near(p.ResponseSeconds, 30/ceiling) || p.Binding != "cpu:main/n8n" {
		t.Errorf("30 VUs: %+v, want held at %v/s with a response of 30 ÷ that, bound by the thread", p, ceiling)
	}
}
