package capacity

import (
	"math"
	"testing"
)

// Seidmann against exact MVA, over m = 2…100 servers, demands of 10 ms to
// 30 s, think times of 0 to 4 D and N up to 4m + 10, with a single-server
// queue of D/(2m) beside the multi-server station. The worst throughput
// error seen is 15.5 % (m = 4, Z = 0, N = 4: 3.40 against 2.88 per D), and
// Seidmann is never above exact: one server of D/m queues users that m
// servers would serve at once.
func TestSeidmannAgainstExact(t *testing.T) {
	worst := 0.0
	for _, m := range []float64{2, 3, 4, 8, 16, 32, 64, 100} {
		for _, d := range []float64{0.01, 1, 30} {
			for _, zOverD := range []float64{0, 0.25, 1, 4} {
				net := Network{Think: zOverD * d, Stations: []Station{
					{Name: "multi", Servers: m, Demand: d}, {Name: "single", Servers: 1, Demand: d / m / 2},
				}}
				worst = math.Max(worst, seidmannGap(t, net, int(4*m)+10))
			}
		}
	}
	if worst > 0.16 {
		t.Fatalf("worst Seidmann throughput error %.4f, want ≤ 0.16", worst)
	}
	t.Logf("worst Seidmann throughput error: %.4f", worst)
}

func seidmannGap(t *testing.T, net Network, n int) float64 {
	t.Helper()
	single, delay := Seidmann(net.Stations)
	above, below := gaps(mustCurve(t)(Exact(net, n)), mustCurve(t)(Exact(Network{Stations: single, Think: net.Think + delay}, n)))
	if above > 1e-12 {
		t.Fatalf("%+v: Seidmann %.3g above exact", net, above)
	}
	return below
}

// At one user Seidmann keeps the latency, and at many the ceiling m/D.
func TestSeidmannEnds(t *testing.T) {
	stations := []Station{{Name: "slots", Servers: 5, Demand: 1.02}, {Name: "cpu", Servers: 0.5, Demand: 0.05}}
	single, delay := Seidmann(stations)
	if single[0].Servers != 1 || !near(single[0].Demand, 1.02/5, 1e-15) || !near(delay, 1.02*4/5, 1e-15) {
		t.Fatalf("got %+v and delay %v", single, delay)
	}
	if single[1].Servers != 1 || !near(single[1].Demand, 0.1, 1e-15) {
		t.Fatalf("a half-speed server is one server of 2D: %+v", single[1])
	}
	c, _ := Exact(Network{Stations: single, Think: delay}, 500)
	if !near(c[0].Throughput, 1/(1.02+0.1), 1e-12) || !near(c[499].Throughput, 5/1.02, 1e-9) {
		t.Fatalf("X(1) %v, X(500) %v", c[0].Throughput, c[499].Throughput)
	}
}
