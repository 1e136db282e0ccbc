package loadgen

import (
	"context"
	"time"
)

// Observer sees a sweep as it runs; loadctl's live Prometheus metrics
// (pkg/loadgen/prom) are one. Result and InFlight are called from the
// request and sampling goroutines: they must be safe for concurrent use
// and must not block.
type Observer interface {
	StepStarted(index int, s Step)
	// Result is one finished request; a dropped start has no latency.
	Result(latency time.Duration, o Outcome)
	InFlight(n int64)
	SweepDone()
}

// StepHook adds to each step's result before the sweep stores it; the
// engine never reads what it adds. loadctl's comparison with the exporter
// (pkg/comparison) is one.
type StepHook interface {
	// Source names what the hook reads; the result records it as
	// settings.exporter.
	Source() string
	// Attach runs after the step's window closes, before the next step
	// starts; it may set sr.Exporter. ctx ends with the sweep.
	Attach(ctx context.Context, sr *StepResult)
}

// nopObserver stands in when a sweep has no observer.
type nopObserver struct{}

func (nopObserver) StepStarted(int, Step)         {}
func (nopObserver) Result(time.Duration, Outcome) {}
func (nopObserver) InFlight(int64)                {}
func (nopObserver) SweepDone()                    {}
