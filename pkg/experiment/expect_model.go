package experiment

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// The steps the model checks can read.
const (
	modelAtBest = "best"
	modelAtLast = "last"
)

// Binding kinds: the prefix of a resource name.
var bindingKinds = []string{"cpu", "slots"}

func (e Expect) validateModel() error {
	if r := e.MeasuredOverCeiling; r != nil && !(r.Min > 0 && r.Min <= r.Max && !math.IsInf(r.Max, 1)) {
		return fmt.Errorf("expect.measured_over_ceiling {min: %v, max: %v}: want 0 < min ≤ max", r.Min, r.Max)
	}
	if e.BindingKind != "" && e.BindingKind != bindingKinds[0] && e.BindingKind != bindingKinds[1] {
		return fmt.Errorf("expect.binding_kind %q: want cpu or slots", e.BindingKind)
	}
	if e.MVAWithin != nil && !(*e.MVAWithin > 0 && *e.MVAWithin <= 1) {
		return fmt.Errorf("expect.mva_within %v: want more than 0 and at most 1", *e.MVAWithin)
	}
	if e.ModelAt != "" && e.ModelAt != modelAtBest && e.ModelAt != modelAtLast {
		return fmt.Errorf("expect.model_at %q: want best or last", e.ModelAt)
	}
	return nil
}

// model judges the checks against the exporter's model: measured ÷
// ceiling and the binding kind at the best step, the MVA at every step.
func (e Expect) model(c *CaseResult, add addFunc) {
	at, where := CheckedStepModel(c.Sweep, c.Predicted, e.ModelAt), "the best step"
	if e.ModelAt == modelAtLast {
		where = "the last step"
	}
	if r := e.MeasuredOverCeiling; r != nil {
		want := fmt.Sprintf("%.2f to %.2f at %s", r.Min, r.Max, where)
		if at != nil && at.Ceiling > 0 {
			got := fmt.Sprintf("%.3f at %s (%.3f/s ÷ %.3f/s, read %s)", at.MeasuredOverCeiling, at.Step.Label(), at.Measured, at.Ceiling, readWhen(at))
			ok := at.MeasuredOverCeiling >= r.Min && at.MeasuredOverCeiling <= r.Max
			if !ok {
				got += stationsAt(c.Sweep, e.ModelAt)
			}
			add("measured_over_ceiling", want, got, ok, at.MeasuredOverCeiling)
		} else {
			add("measured_over_ceiling", want, "no ceiling", false)
		}
	}
	if e.BindingKind != "" {
		got := "none published"
		if at != nil && at.Binding != "" {
			got = fmt.Sprintf("%s at %s", at.Binding, at.Step.Label())
		}
		add("binding_kind", e.BindingKind+" (a "+e.BindingKind+": resource binds at "+where+")", got,
			at != nil && strings.HasPrefix(at.Binding, e.BindingKind+":"))
	}
	if e.MVAWithin != nil {
		want := fmt.Sprintf("±%.1f%% of measured at every step", 100**e.MVAWithin)
		got, worst, ok := mvaAtEveryStep(c.Sweep, *e.MVAWithin)
		if math.IsNaN(worst) {
			add("mva_within", want, got, ok)
		} else {
			add("mva_within", want, got, ok, worst)
		}
	}
}

func readWhen(m *StepModel) string {
	if m.Source == FromStep {
		return "at the step's end"
	}
	return m.Source
}

// mvaAtEveryStep compares the MVA's prediction with the passing throughput
// of each step; a step without either fails the check. worst is the signed
// deviation farthest from 0, NaN when no step had one.
func mvaAtEveryStep(res *loadgen.Result, within float64) (got string, worst float64, ok bool) {
	if res == nil || len(res.Steps) == 0 {
		return "no step ran", math.NaN(), false
	}
	worst = math.NaN()
	at := ""
	var missing []string
	for _, s := range res.Steps {
		c, tput := comparison.Of(s), s.Figures.Throughput
		switch {
		case tput <= 0:
			missing = append(missing, s.Load.Label()+": nothing passed")
		case c == nil || c.Error != "":
			missing = append(missing, s.Load.Label()+": no exporter read")
		case c.Prediction == nil || c.Prediction.Model != comparison.ModelMVA:
			missing = append(missing, s.Load.Label()+": no MVA ("+c.MVAError+")")
		default:
			if dev := c.Prediction.Throughput/tput - 1; math.IsNaN(worst) || math.Abs(dev) > math.Abs(worst) {
				worst = dev
				at = fmt.Sprintf("%+.1f%% at %s (predicted %.3f/s, measured %.3f/s%s)", 100*dev, s.Load.Label(), c.Prediction.Throughput, tput, mvaInputs(c.Prediction))
			}
		}
	}
	if len(missing) > 0 {
		return strings.Join(missing, "; "), worst, false
	}
	return fmt.Sprintf("worst %s over %d steps", at, len(res.Steps)), worst, math.Abs(worst) <= within
}

// mvaInputs names what a prediction was solved from: the one-request
// latency, and the station that holds one execution longest (the latency
// is never below that hold).
func mvaInputs(p *comparison.Prediction) string {
	out := fmt.Sprintf("; one-request latency %.3f s from %d VU", p.LatencySeconds, p.LatencyFromVUs)
	longest, name := 0.0, ""
	for _, st := range p.Network().Stations {
		if h := st.MinHold(); h > longest {
			longest, name = h, st.Name
		}
	}
	if name != "" {
		out += fmt.Sprintf(", longest hold %.3f s at %s", longest, name)
	}
	return out
}

// stationsAt lists the resources the exporter published at the step the
// checks read, lowest ceiling first, so that a failed ratio names what
// each resource allowed: "; resources: cpu:host 2 × 34.0 ms → 58.8/s, …".
// "" when the step recorded none.
func stationsAt(res *loadgen.Result, at string) string {
	i := checkedStep(res, at)
	if i < 0 {
		return ""
	}
	c := comparison.Of(res.Steps[i])
	if c == nil || c.Prediction == nil || len(c.Prediction.Stations) == 0 {
		return ""
	}
	st := slices.Clone(c.Prediction.Network().Stations)
	slices.SortStableFunc(st, func(a, b capacity.Station) int { return cmp.Compare(a.Ceiling(), b.Ceiling()) })
	parts := make([]string, len(st))
	for j, s := range st {
		parts[j] = fmt.Sprintf("%s %.3g × %.1f ms → %.3f/s", s.Name, s.Servers, 1000*s.Demand, s.Ceiling())
	}
	return "; resources: " + strings.Join(parts, ", ")
}
