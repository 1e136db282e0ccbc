package capacity

import "math"

// Asymptotic is the asymptotic bound of a closed system of N users (Lazowska
// et al., Quantitative System Performance, ch. 5): each user's cycle takes
// at least Cycle = Z + D (think time plus one execution alone), and no
// resource completes more than m_k/D_k executions per second, so
//
//	X(N) ≤ min(N / Cycle, Ceiling)
//
// With single-server resources Ceiling is 1/D_max, the textbook form.
type Asymptotic struct {
	Cycle   float64 // seconds: think time plus one execution's uncontended latency
	Ceiling float64 // executions per second: min_k m_k/D_k
}

// NewAsymptotic checks that both figures are positive and finite.
func NewAsymptotic(cycle, ceiling float64) (Asymptotic, error) {
	if !positive(cycle) || !positive(ceiling) {
		return Asymptotic{}, invalid("asymptotic bound needs a positive cycle and ceiling, got %v s and %v/s", cycle, ceiling)
	}
	return Asymptotic{Cycle: cycle, Ceiling: ceiling}, nil
}

// Throughput is the bound on X(N): min(N/Cycle, Ceiling).
func (a Asymptotic) Throughput(n int) float64 {
	return math.Min(float64(n)/a.Cycle, a.Ceiling)
}

// MinCycle is the bound on N/X(N), a user's cycle: max(Cycle, N/Ceiling).
// Minus the think time it is the response-time bound max(D, N·D_max − Z).
func (a Asymptotic) MinCycle(n int) float64 {
	return math.Max(a.Cycle, float64(n)/a.Ceiling)
}

// Knee is N*, where the two bounds meet: Cycle × Ceiling, which is
// (D + Z)/D_max with single servers. Below it users mostly wait on
// themselves, above it on the binding resource.
func (a Asymptotic) Knee() float64 { return a.Cycle * a.Ceiling }
