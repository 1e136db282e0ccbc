package loadgen

import (
	"errors"
	"fmt"
	"time"
)

// Model is the load model of a sweep.
type Model string

// The load models.
const (
	Closed Model = "closed" // VUs, each with one request in flight
	Open   Model = "open"   // arrivals on a fixed schedule
)

// Bounds that keep a typo from becoming a runaway load.
const (
	MaxSteps        = 100
	MaxVUs          = 10000
	MaxRate         = 100000 // requests per second
	MaxStepDuration = 24 * time.Hour
	DefaultLate     = 10 * time.Millisecond
)

// Step is one level of load: VUs for a closed sweep, Rate for an open one.
type Step struct {
	VUs  int     `json:"vus,omitempty"`
	Rate float64 `json:"rate_per_second,omitempty"`
}

// Plan is the shape of a sweep.
type Plan struct {
	Model       Model
	Steps       []Step
	Step        time.Duration // measured part of each step
	Warmup      time.Duration // unmeasured lead-in of each step
	MaxInFlight int           // open loop: starts beyond it are dropped
	LateAfter   time.Duration // open loop: a start this late counts as late
	StopAtKnee  bool
}

// ClosedSteps and OpenSteps turn flag lists into steps.
func ClosedSteps(vus []int) []Step {
	out := make([]Step, len(vus))
	for i, v := range vus {
		out[i] = Step{VUs: v}
	}
	return out
}

// OpenSteps makes one open-loop step per arrival rate (per second).
func OpenSteps(rates []float64) []Step {
	out := make([]Step, len(rates))
	for i, r := range rates {
		out[i] = Step{Rate: r}
	}
	return out
}

// Validate checks a plan; its messages name the setting at fault.
func (p Plan) Validate() error {
	if p.Model != Closed && p.Model != Open {
		return fmt.Errorf("model %q: want closed or open", p.Model)
	}
	if len(p.Steps) == 0 || len(p.Steps) > MaxSteps {
		return fmt.Errorf("steps: want 1 to %d, got %d", MaxSteps, len(p.Steps))
	}
	if p.Step <= 0 || p.Step+p.Warmup > MaxStepDuration {
		return fmt.Errorf("step duration %v: want more than 0 and, with warm-up, at most %v", p.Step, MaxStepDuration)
	}
	if p.Warmup < 0 {
		return errors.New("warm-up must not be negative")
	}
	for _, s := range p.Steps {
		if err := p.validStep(s); err != nil {
			return err
		}
	}
	return nil
}

func (p Plan) validStep(s Step) error {
	if p.Model == Closed && (s.VUs <= 0 || s.VUs > MaxVUs) {
		return fmt.Errorf("vus %d: want 1 to %d", s.VUs, MaxVUs)
	}
	if p.Model == Open {
		if !(s.Rate > 0 && s.Rate <= MaxRate) {
			return fmt.Errorf("rate %v/s: want more than 0 and at most %d", s.Rate, MaxRate)
		}
		if p.MaxInFlight <= 0 || p.MaxInFlight > MaxVUs {
			return fmt.Errorf("max in flight %d: want 1 to %d", p.MaxInFlight, MaxVUs)
		}
	}
	return nil
}

// Duration is the planned wall time of the whole sweep.
func (p Plan) Duration() time.Duration {
	return time.Duration(len(p.Steps)) * (p.Step + p.Warmup)
}

func (p Plan) lateAfter() time.Duration {
	if p.LateAfter <= 0 {
		return DefaultLate
	}
	return p.LateAfter
}
