package comparison

import (
	"fmt"
	"math"
	"sync"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// Hook is the loadgen.StepHook that reads the exporter after each step.
// It serves one sweep: it keeps, from step to step, the one-request
// latency the MVA needs, which the exporter cannot see (n8n answers a
// webhook before its route metrics do).
type Hook struct {
	Reader *snapshot.Reader

	mu   sync.Mutex
	base *oneRequest
}

// oneRequest is the latency of one request alone and the VUs of the step
// it was solved from.
type oneRequest struct {
	seconds float64
	vus     int
}

// predict adds the step's prediction. The MVA runs over the resources read
// at this step's end (the demands measured under its load); its
// one-request latency comes from the lowest closed-loop step so far: the
// mean response of that step's passing requests, less the waits the MVA
// puts on its VUs (capacity.LatencyAlone; at one VU, the response itself).
// A slot held longer than that latency under load is held for the latency
// (capacity.Network.HeldAtMost): the rest of its hold is waits the MVA
// adds itself. An exporter without resource series gets the slot formula
// instead.
func (h *Hook) predict(c *Comparison, m model, vus int, sum loadgen.Summary) {
	queueWait := 0
	if m.mdErr == nil {
		queueWait = max(0, vus-m.md.Verdict.WorkerConcurrency)
	}
	err := m.bErr
	if err == nil && len(m.b.Stations()) == 0 {
		err = fmt.Errorf("no resource has a known demand yet")
	}
	if err != nil {
		c.MVAError = err.Error()
		if m.mdErr == nil {
			c.Prediction = slotsPrediction(m.md, vus)
		}
		return
	}
	p, net, latency, base, err := h.mva(capacity.Network{Stations: m.b.Stations()}, vus, sum)
	if err != nil {
		c.MVAError = err.Error()
		return
	}
	p, held := heldAtCeiling(p, c.Ceiling)
	binding := m.b.Bottleneck()
	if held {
		binding = c.Binding
	}
	c.Prediction = &Prediction{Model: ModelMVA, Throughput: p.Throughput, MeanLatencySeconds: p.Response, QueueWait: queueWait,
		ResponseSeconds: p.Response, Binding: binding, LargestQueue: p.Largest, LatencySeconds: latency, LatencyFromVUs: base.vus,
		HeldAtCeiling: held, Stations: stationsOf(net.Stations)}
}

// heldAtCeiling holds an MVA point at the ceiling the exporter published
// at the step (when known), with the response a closed loop then has.
// The MVA holds each JavaScript thread at its cores alone and queues its
// wait for a core at cpu:host, as a product-form station: a thread that
// gets a core only part of the time it has work (other threads of the
// same executions hold the cores) caps the throughput below the host's
// cores, and only the ceiling, which counts the thread at the share it
// ran, holds that.
func heldAtCeiling(p capacity.Point, ceiling float64) (capacity.Point, bool) {
	if ceiling <= 0 || p.Throughput <= ceiling {
		return p, false
	}
	p.Throughput, p.Response = ceiling, float64(p.N)/ceiling
	return p, true
}

// mva is the MVA point at vus over net, with the network and the latency
// it used and the one-request latency in force.
func (h *Hook) mva(net capacity.Network, vus int, sum loadgen.Summary) (capacity.Point, capacity.Network, float64, oneRequest, error) {
	base, err := h.oneRequest(net, vus, sum)
	if err != nil {
		return capacity.Point{}, net, 0, base, err
	}
	net = net.HeldAtMost(base.seconds)
	latency := math.Max(base.seconds, net.MinLatency())
	curve, err := capacity.Overlapping(net, latency, vus)
	if err != nil {
		return capacity.Point{}, net, 0, base, err
	}
	return curve[vus-1], net, latency, base, nil
}

// oneRequest solves the one-request latency from this step when it is the
// lowest closed-loop step so far with a passing request, and returns the
// latency in force.
func (h *Hook) oneRequest(net capacity.Network, vus int, sum loadgen.Summary) (oneRequest, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sum.Latency.Count > 0 && (h.base == nil || vus < h.base.vus) {
		l, err := capacity.LatencyAlone(net, vus, sum.Latency.Mean)
		if err != nil {
			return oneRequest{}, err
		}
		h.base = &oneRequest{seconds: l, vus: vus}
	}
	if h.base == nil {
		return oneRequest{}, fmt.Errorf("no one-request latency yet: no closed-loop step so far had a passing request")
	}
	return *h.base, nil
}

// slotsPrediction is the formula for an exporter without resource series:
// min(VUs / job time, slot ceiling).
func slotsPrediction(md snapshot.Model, vus int) *Prediction {
	p, err := capacity.PredictClosedLoop(md.Verdict, vus)
	if err != nil {
		return nil
	}
	return &Prediction{Model: ModelSlots, Throughput: p.Throughput, MeanLatencySeconds: p.MeanLatency.Seconds(), QueueWait: p.QueueWait}
}

// Replay solves the MVA again over a saved sweep, as the Hook did while it
// ran: each closed-loop step over the stations recorded at its end, the
// one-request latency from the lowest step. A step without recorded
// stations gets NaN.
func Replay(steps []loadgen.StepResult) ([]float64, error) {
	h := &Hook{}
	out := make([]float64, len(steps))
	for i, s := range steps {
		out[i] = math.NaN()
		c := Of(s)
		if s.Load.VUs == 0 || c == nil || c.Prediction == nil || len(c.Prediction.Stations) == 0 {
			continue
		}
		p, _, _, _, err := h.mva(c.Prediction.Network(), s.Load.VUs, s.Figures)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		p, _ = heldAtCeiling(p, c.Ceiling)
		out[i] = p.Throughput
	}
	return out, nil
}
