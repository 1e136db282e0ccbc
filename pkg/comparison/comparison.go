// Package comparison sets each step of a sweep against the capacity model
// the exporter publishes: the ceiling (the bound over every resource),
// measured ÷ ceiling, the binding resource, and for closed-loop steps the
// mean value analysis prediction for the step's VUs. Hook attaches it to a
// loadgen.Sweep; Of reads it back from a step result.
package comparison

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// Comparison sets a step against the capacity model read from the
// exporter at the end of the step. It is the step's `exporter` object in
// the sweep result.
type Comparison struct {
	Ceiling    float64 `json:"ceiling_per_second"`
	Ratio      float64 `json:"measured_over_ceiling"`
	Bottleneck string  `json:"bottleneck"`
	Effective  int     `json:"effective_concurrency"`
	// Binding is the resource whose ceiling is the cluster's, e.g.
	// cpu:host or slots:runner:<worker>; empty from an exporter without
	// resource series.
	Binding     string      `json:"binding,omitempty"`
	SlotCeiling float64     `json:"slot_ceiling_per_second,omitempty"` // what the slots alone would allow
	Prediction  *Prediction `json:"prediction,omitempty"`              // closed loop only
	// MVAError says why a closed-loop step has no MVA prediction.
	MVAError string `json:"mva_error,omitempty"`
	Error    string `json:"error,omitempty"` // the scrape failed, URLs redacted; other fields are empty
}

// Model names how a prediction was made.
const (
	// ModelMVA is capacity.Overlapping over the exporter's resources, with
	// the one-request latency taken from the sweep's lowest step.
	ModelMVA = "mva"
	// ModelSlots is capacity.PredictClosedLoop, min(VUs / job time, slot
	// ceiling), for an exporter without resource series.
	ModelSlots = "slots"
)

// Prediction is what the model expects from the step's VUs.
type Prediction struct {
	Model              string  `json:"model,omitempty"` // ModelMVA or ModelSlots; absent in results before the MVA
	Throughput         float64 `json:"throughput_per_second"`
	MeanLatencySeconds float64 `json:"mean_latency_seconds"` // VUs / throughput: the response time
	QueueWait          int     `json:"queue_wait"`           // jobs waiting in Redis: max(0, VUs − worker concurrency)
	// The MVA's figures: the response time, the resource the curve rises
	// to (the binding one), the station with the longest queue at these
	// VUs, and the one-request latency used with the VUs of the step it
	// came from.
	ResponseSeconds float64 `json:"response_seconds,omitempty"`
	Binding         string  `json:"binding,omitempty"`
	LargestQueue    string  `json:"largest_queue,omitempty"`
	LatencySeconds  float64 `json:"one_request_latency_seconds,omitempty"`
	LatencyFromVUs  int     `json:"latency_from_vus,omitempty"`
	// HeldAtCeiling: the MVA rose past the step's published ceiling and
	// the prediction is that ceiling (Binding is then the ceiling's).
	HeldAtCeiling bool `json:"held_at_ceiling,omitempty"`
	// Stations are the MVA's inputs as read at the step's end, so a saved
	// sweep can be solved again.
	Stations []Station `json:"stations,omitempty"`
}

// Station is one MVA station as recorded in a step: capacity.Station with
// JSON names.
type Station struct {
	Name     string  `json:"name"`
	Servers  float64 `json:"servers"`
	Demand   float64 `json:"demand_seconds"`
	Spread   bool    `json:"spread,omitempty"`
	RunToEnd bool    `json:"run_to_end,omitempty"`
}

func stationsOf(in []capacity.Station) []Station {
	out := make([]Station, len(in))
	for i, s := range in {
		out[i] = Station(s)
	}
	return out
}

// Network is the recorded stations as the MVA's closed network.
func (p Prediction) Network() capacity.Network {
	net := capacity.Network{Stations: make([]capacity.Station, len(p.Stations))}
	for i, s := range p.Stations {
		net.Stations[i] = capacity.Station(s)
	}
	return net
}

// Compare sets one step's figures against a scrape: the bound only; the
// Hook adds the prediction. It fails when the scrape holds neither a
// worker nor a resource series.
func Compare(snap *snapshot.Snapshot, sum loadgen.Summary) (*Comparison, error) {
	return readModel(snap).compare(sum)
}

// model is one scrape's slot model and bound analysis, each with its
// error: an exporter before the bound analysis has no resources, a
// single-mode n8n no workers.
type model struct {
	snap  *snapshot.Snapshot
	md    snapshot.Model
	mdErr error
	b     capacity.Bounds
	bErr  error
}

func readModel(snap *snapshot.Snapshot) model {
	m := model{snap: snap}
	m.md, m.mdErr = snap.Model()
	m.b, m.bErr = snap.Bounds()
	return m
}

func (m model) compare(sum loadgen.Summary) (*Comparison, error) {
	if m.mdErr != nil && m.bErr != nil {
		return nil, m.mdErr
	}
	c := &Comparison{}
	if m.mdErr == nil {
		c.Ceiling, c.Bottleneck, c.Effective = m.md.Ceiling, m.md.Bottleneck, m.md.Effective
	} else if pc := m.snap.Cluster.Ceiling; pc.OK {
		c.Ceiling = pc.Value
	} else {
		c.Ceiling = m.b.Ceiling
	}
	if m.bErr == nil {
		c.Binding, c.SlotCeiling = m.snap.Binding(), m.b.SlotCeiling
	}
	if c.Ceiling > 0 {
		c.Ratio = sum.Throughput / c.Ceiling
	}
	return c, nil
}

// readTimeout bounds the scrape at the end of each step.
const readTimeout = 5 * time.Second

var _ loadgen.StepHook = (*Hook)(nil)

// Source is the exporter's URL with its password and query values hidden.
func (h *Hook) Source() string { return redact.URL(h.Reader.URL) }

// Attach reads the exporter and stores the comparison in sr.Exporter. A
// failed read is recorded as the comparison's error; a sweep that is
// ending records nothing.
func (h *Hook) Attach(ctx context.Context, sr *loadgen.StepResult) {
	if ctx.Err() != nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	c := h.compare(rctx, sr)
	raw, err := json.Marshal(c)
	if err != nil { // a plain struct of numbers and strings always encodes
		return
	}
	sr.Exporter = raw
}

func (h *Hook) compare(ctx context.Context, sr *loadgen.StepResult) *Comparison {
	snap, err := h.Reader.Read(ctx)
	if err != nil {
		return &Comparison{Error: redact.Text(err.Error())} // the client's error quotes the URL whole
	}
	m := readModel(snap)
	c, err := m.compare(sr.Figures)
	if err != nil {
		return &Comparison{Error: redact.Text(err.Error())}
	}
	if sr.Load.VUs > 0 {
		h.predict(c, m, sr.Load.VUs, sr.Figures)
	}
	return c
}

// Of reads the comparison a Hook attached to a step; nil when there is
// none. One that does not decode comes back as its error.
func Of(s loadgen.StepResult) *Comparison {
	if len(s.Exporter) == 0 || string(s.Exporter) == "null" {
		return nil
	}
	var c Comparison
	if err := json.Unmarshal(s.Exporter, &c); err != nil {
		return &Comparison{Error: fmt.Sprintf("step %d: unreadable exporter comparison: %v", s.Index+1, err)}
	}
	return &c
}
