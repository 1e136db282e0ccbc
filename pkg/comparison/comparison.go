// Package comparison sets each step of a sweep against the capacity model
// the exporter publishes: the ceiling, measured ÷ ceiling, the bottleneck
// and the closed-loop prediction for the step's VUs. Hook attaches it to a
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
	Ceiling    float64     `json:"ceiling_per_second"`
	Ratio      float64     `json:"measured_over_ceiling"`
	Bottleneck string      `json:"bottleneck"`
	Effective  int         `json:"effective_concurrency"`
	Prediction *Prediction `json:"prediction,omitempty"` // closed loop with a known service time
	Error      string      `json:"error,omitempty"`      // the scrape failed, URLs redacted; other fields are empty
}

// Prediction is capacity.PredictClosedLoop for the step's VUs.
type Prediction struct {
	Throughput         float64 `json:"throughput_per_second"`
	MeanLatencySeconds float64 `json:"mean_latency_seconds"`
	QueueWait          int     `json:"queue_wait"`
}

// Compare sets one step's figures against a model.
func Compare(md snapshot.Model, st loadgen.Step, sum loadgen.Summary) *Comparison {
	c := &Comparison{Ceiling: md.Ceiling, Bottleneck: md.Bottleneck, Effective: md.Effective}
	if md.Ceiling > 0 {
		c.Ratio = sum.Throughput / md.Ceiling
	}
	if st.VUs > 0 {
		if p, err := capacity.PredictClosedLoop(md.Verdict, st.VUs); err == nil {
			c.Prediction = &Prediction{Throughput: p.Throughput, MeanLatencySeconds: p.MeanLatency.Seconds(), QueueWait: p.QueueWait}
		}
	}
	return c
}

// readTimeout bounds the scrape at the end of each step.
const readTimeout = 5 * time.Second

// Hook is the loadgen.StepHook that reads the exporter after each step.
type Hook struct {
	Reader *snapshot.Reader
}

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
	md, err := snap.Model()
	if err != nil {
		return &Comparison{Error: redact.Text(err.Error())}
	}
	return Compare(md, sr.Load, sr.Figures)
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
