package loadgen

// Knee rules: the knee is the lowest step whose throughput
// is at least KneeShare of the best step's, where every later step adds
// less than Plateau over it while latency rises.
const (
	KneeShare = 0.95
	Plateau   = 0.05
)

// KneePoint is one step as the knee finder sees it.
type KneePoint struct {
	Throughput float64 // passing requests per second
	Latency    float64 // p50 of passing requests, any unit
}

// FindKnee returns the index of the knee, or -1 when the sweep has not
// shown a plateau (throughput still rising, or no step after the
// candidate to prove it flat).
func FindKnee(pts []KneePoint) int {
	best := 0.0
	for _, p := range pts {
		best = max(best, p.Throughput)
	}
	if best <= 0 {
		return -1
	}
	for i, p := range pts {
		if p.Throughput >= KneeShare*best && isPlateau(p, pts[i+1:]) {
			return i
		}
	}
	return -1
}

// isPlateau: at least one later step, none adding Plateau or more, and
// latency higher at the end than at the knee.
func isPlateau(knee KneePoint, later []KneePoint) bool {
	if len(later) == 0 {
		return false
	}
	for _, p := range later {
		if p.Throughput >= (1+Plateau)*knee.Throughput {
			return false
		}
	}
	return later[len(later)-1].Latency > knee.Latency
}

// AddsLittle reports whether the newest step added less than Plateau over
// the best earlier step: the --stop-at-knee rule.
func AddsLittle(pts []KneePoint) bool {
	if len(pts) < 2 {
		return false
	}
	best := 0.0
	for _, p := range pts[:len(pts)-1] {
		best = max(best, p.Throughput)
	}
	return pts[len(pts)-1].Throughput < (1+Plateau)*best
}
