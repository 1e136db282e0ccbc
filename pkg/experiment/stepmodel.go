package experiment

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Where a StepModel's bound was read.
const (
	FromStep      = "step"       // the exporter read at the step's end (pkg/comparison)
	FromAfterLoad = "after load" // that read failed: the one after the load
)

// StepModel sets one step of a case's sweep against the exporter's model:
// the published ceiling (the bound over every resource) and the resource
// that sets it, read at the step's end, and the mean value analysis
// prediction for its VUs.
type StepModel struct {
	Step                loadgen.Step `json:"step"`
	Measured            float64      `json:"measured_per_second"` // the step's passing throughput
	Ceiling             float64      `json:"ceiling_per_second"`
	MeasuredOverCeiling float64      `json:"measured_over_ceiling,omitempty"`
	Binding             string       `json:"binding,omitempty"`
	SlotCeiling         float64      `json:"slot_ceiling_per_second,omitempty"`
	MVA                 float64      `json:"mva_per_second,omitempty"` // closed loop: the MVA's throughput
	MVAOverMeasured     float64      `json:"mva_over_measured,omitempty"`
	MVAResponse         float64      `json:"mva_response_seconds,omitempty"`
	OneRequestLatency   float64      `json:"one_request_latency_seconds,omitempty"`
	MVAError            string       `json:"mva_error,omitempty"` // why a closed-loop step has no MVA
	Source              string       `json:"source"`              // FromStep or FromAfterLoad
}

// StepModelOf reads the comparison the sweep attached to a step; after is
// the read after the load, used for the bound when the step has none.
func StepModelOf(s loadgen.StepResult, after *Prediction) *StepModel {
	m := &StepModel{Step: s.Load, Measured: s.Figures.Throughput, Source: FromStep}
	c := comparison.Of(s)
	switch {
	case c != nil && c.Error == "":
		m.Ceiling, m.Binding, m.SlotCeiling, m.MVAError = c.Ceiling, c.Binding, c.SlotCeiling, c.MVAError
		if p := c.Prediction; p != nil && p.Model == comparison.ModelMVA {
			m.MVA, m.MVAResponse, m.OneRequestLatency = p.Throughput, p.ResponseSeconds, p.LatencySeconds
		}
	case after != nil:
		m.Source = FromAfterLoad
		m.Ceiling, m.Binding, m.SlotCeiling = after.Ceiling, after.Binding, after.SlotCeiling
		if c != nil {
			m.MVAError = "no exporter read at the step's end: " + c.Error
		}
	default:
		return nil
	}
	if m.Ceiling > 0 {
		m.MeasuredOverCeiling = m.Measured / m.Ceiling
	}
	if m.MVA > 0 && m.Measured > 0 {
		m.MVAOverMeasured = m.MVA / m.Measured
	}
	return m
}

// CheckedStepModel is the model at the step a case's checks read: the
// last step for model_at: last, else the best.
func CheckedStepModel(res *loadgen.Result, after *Prediction, at string) *StepModel {
	if i := checkedStep(res, at); i >= 0 {
		return StepModelOf(res.Steps[i], after)
	}
	return nil
}

// checkedStep is the index of the step a case's checks read: the last
// for model_at: last, else the best; -1 when no step ran.
func checkedStep(res *loadgen.Result, at string) int {
	if at != modelAtLast {
		return bestStep(res)
	}
	if res == nil {
		return -1
	}
	return len(res.Steps) - 1
}

// bestStep is the index of the step with the highest passing throughput,
// the first on a tie; -1 when no step ran.
func bestStep(res *loadgen.Result) int {
	best := -1
	if res == nil {
		return best
	}
	for i, s := range res.Steps {
		if best < 0 || s.Figures.Throughput > res.Steps[best].Figures.Throughput {
			best = i
		}
	}
	return best
}
