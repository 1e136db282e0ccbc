package capacity

import (
	"math"
	"time"
)

// OperatingFraction is the share of a measured breaking point the seed
// recommends running at: load 120 broke, so operate at 80.
const OperatingFraction = 2.0 / 3.0

// OperatingPoint returns the starting operating point for a measured
// breaking point (VUs, or executions per second).
func OperatingPoint(breaking float64) (float64, error) {
	if breaking <= 0 || math.IsNaN(breaking) || math.IsInf(breaking, 0) {
		return 0, invalid("breaking point must be a positive number, got %v", breaking)
	}
	return breaking * OperatingFraction, nil
}

// Sizing is what to set to reach a target throughput. Workers and runners
// come in pairs: each pair is one worker with WorkerConcurrency and one
// runner with RunnerLimit.
type Sizing struct {
	TargetPerSecond   float64
	Slots             int // concurrent executions needed: ceil(target × job time)
	Pairs             int
	WorkerConcurrency int // per worker
	RunnerLimit       int // per runner
	Ceiling           float64
}

// SizeFor returns the smallest pairing that reaches target executions per
// second when one runner may run at most maxPerRunner tasks (memory sets
// that bound: each task holds its data in the runner).
func SizeFor(target float64, s ServiceTime, maxPerRunner int) (Sizing, error) {
	if target <= 0 || math.IsNaN(target) || math.IsInf(target, 0) {
		return Sizing{}, invalid("target throughput must be positive, got %v", target)
	}
	if !s.Known() {
		return Sizing{}, invalid("sizing needs a positive service time")
	}
	if maxPerRunner <= 0 {
		return Sizing{}, invalid("max tasks per runner must be positive, got %d", maxPerRunner)
	}
	slots := slotsFor(target, max(s.Job, s.Task))
	pairs := ceilDiv(slots, maxPerRunner)
	per := ceilDiv(slots, pairs)
	return Sizing{
		TargetPerSecond:   target,
		Slots:             slots,
		Pairs:             pairs,
		WorkerConcurrency: per,
		RunnerLimit:       per,
		Ceiling:           float64(pairs) * math.Min(perSecond(per, s.Job), perSecond(per, s.Task)),
	}, nil
}

// slotsFor is ceil(target × t), tolerant of float noise (8/s × 3 s is 24).
func slotsFor(target float64, t time.Duration) int {
	return int(math.Ceil(target*t.Seconds() - 1e-9))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
