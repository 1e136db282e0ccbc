package loadgen

import (
	"math"
	"testing"
)

func pts(tl ...float64) []KneePoint {
	var out []KneePoint
	for i := 0; i+1 < len(tl); i += 2 {
		out = append(out, KneePoint{Throughput: tl[i], Latency: tl[i+1]})
	}
	return out
}

func TestFindKnee(t *testing.T) {
	cases := []struct {
		name string
		pts  []KneePoint
		want int
	}{
		// The seed shape: 5, 10, 20 VU against runner limit 5 and 1 s tasks.
		{"seed 5/10/20 VU flat at 5/s", pts(4.95, 1.01, 4.98, 2.0, 4.97, 4.0), 0},
		{"rises then flat", pts(1, 1, 2, 1, 4, 1.1, 4.1, 2, 4.05, 4), 2},
		{"slight rise within 5% is the knee's plateau", pts(2, 1, 4.8, 1.05, 5, 2), 1},
		{"still rising", pts(1, 1, 2, 1, 4, 1), -1},
		{"best is the last step: nothing after it", pts(1, 1, 2, 1, 2.2, 1.5), -1},
		{"flat but latency fell", pts(5, 2, 5, 1), -1},
		{"later step adds 5% or more", pts(4, 1, 3.9, 2, 4.25, 3), -1},
		// A CI run: 4.75 is just 95 % of the best, but 5.00 adds 5.3 % over
		// it; the plateau starts at the next step.
		{"lowest within 95% still rising", pts(4.75, 1.05, 4.90, 2.02, 5.00, 4.03), 1},
		{"all failing", pts(0, 0, 0, 0), -1},
		{"single step", pts(5, 1), -1},
		{"collapse after peak", pts(5, 1, 3, 5), 0},
		{"empty", nil, -1},
	}
	for _, c := range cases {
		if got := FindKnee(c.pts); got != c.want {
			t.Errorf("%s: knee %d, want %d", c.name, got, c.want)
		}
	}
}

func TestAddsLittle(t *testing.T) {
	cases := []struct {
		pts  []KneePoint
		want bool
	}{
		{pts(5, 1), false},
		{pts(5, 1, 5.2, 2), true},
		{pts(5, 1, 5.25, 2), false},
		{pts(2, 1, 4, 1), false},
		{pts(2, 1, 6, 1, 4, 2), true},
	}
	for i, c := range cases {
		if got := AddsLittle(c.pts); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}

func TestKneePointsUseAllRequestsLatency(t *testing.T) {
	steps := []StepResult{
		{Figures: Summary{Throughput: 39.5, Requests: 79, LatencyAll: Latency{Count: 79, P50: 0.102}}},
		// Past the ceiling nothing passes: every request timed out.
		{Figures: Summary{Throughput: 0, Requests: 160, LatencyAll: Latency{Count: 100, P50: 0.3}}},
		// Every start dropped: nothing completed at all.
		{Figures: Summary{Throughput: 0, Requests: 320}},
	}
	pts := KneePoints(steps)
	if pts[1].Latency != 0.3 || !math.IsInf(pts[2].Latency, 1) {
		t.Errorf("points %+v", pts)
	}
	if k := FindKnee(pts); k != 0 {
		t.Errorf("knee %d, want 0: throughput collapsed after the first step", k)
	}
}
