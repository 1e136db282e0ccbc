package capacity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// A lab-shaped cluster: one worker of 15 slots holding each job 1.10 s,
// 5 runner slots holding each task 1.02 s inside it, and 1.26 s from request
// to response when one execution runs alone.
func labShaped(t *testing.T) (Bounds, Network) {
	t.Helper()
	v := evaluated(t, Cluster{
		Workers: []Worker{{Name: "w1", Concurrency: 15, Runners: []Runner{{Limit: 5}}}},
		Service: ServiceTime{Job: 1100 * time.Millisecond, Task: 1020 * time.Millisecond},
	})
	b, err := Combine(SlotResources(v), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b, Network{Stations: b.Stations()}
}

func TestLabShapedOverlap(t *testing.T) {
	b, net := labShaped(t)
	if b.Bottleneck() != "slots:runner:w1" || !near(b.Ceiling, 5/1.02, 1e-12) {
		t.Fatalf("bound table names %q at %v/s, want the runner slots at 5/1.02", b.Bottleneck(), b.Ceiling)
	}
	curve, err := Overlapping(net, 1.26, 400)
	if err != nil {
		t.Fatal(err)
	}
	// Five users fit on five runner slots: nobody waits, so X(N) = N/1.26.
	for n := 1; n <= 5; n++ {
		if p := curve[n-1]; p.Throughput != float64(n)/1.26 || p.Response != 1.26 {
			t.Errorf("N=%d: X %v R %v, want %v and 1.26 exactly", n, p.Throughput, p.Response, float64(n)/1.26)
		}
	}
	if x := curve[5].Throughput; x >= 6/1.26 {
		t.Errorf("N=6: X %v, a sixth user must wait for a runner slot", x)
	}
	last := curve[len(curve)-1]
	if !near(last.Throughput, 5/1.02, 1e-6) || last.Largest != "slots:runner:w1" {
		t.Errorf("N=400: X %v largest %s, want → 5/1.02 at the runner slots", last.Throughput, last.Largest)
	}
}

// The overlap form at one user is the latency itself, for any overlap.
func TestOverlappingOneUser(t *testing.T) {
	for _, net := range randomOverlaps(50) {
		c, err := Overlapping(net.Network, net.latency, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c[0].Throughput != 1/(net.Think+net.latency) {
			t.Fatalf("%+v: X(1) %v, want 1/(Z + latency)", net, c[0].Throughput)
		}
	}
}

// The wait at each station comes from a probability distribution, so the
// curve never crosses the asymptotic bound min(N/(Z + latency), min m/D).
func TestOverlappingStaysWithinAsymptoticBound(t *testing.T) {
	for _, net := range randomOverlaps(200) {
		c, err := Overlapping(net.Network, net.latency, 150)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := NewAsymptotic(net.Think+net.latency, net.Ceiling())
		for _, p := range c {
			if p.Throughput > a.Throughput(p.N)*(1+1e-12) {
				t.Fatalf("%+v N=%d: X %v above the bound %v", net, p.N, p.Throughput, a.Throughput(p.N))
			}
		}
	}
}

// A short webhook on two cores: alone, one request takes 49 ms and keeps
// 57 ms of the host's CPU busy, so it needs more than one core. Two users
// then share the cores before either has a core to itself: with the host as
// two separate servers the curve put them at 2/0.049 = 40.8/s, past the
// host's 2/0.057 = 35.1/s. Within the latency the host is 2·49/57 servers
// each held 49 ms, and the two users wait for each other.
func TestOverlappingSpreadBeyondOneCore(t *testing.T) {
	net := Network{Stations: []Station{{Name: "cpu:host", Servers: 2, Demand: 0.057, Spread: true}}}
	c, err := Overlapping(net, 0.049, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c[0].Throughput != 1/0.049 {
		t.Errorf("N=1: X %v, want 1/0.049", c[0].Throughput)
	}
	// One other user always at the host: the arrival waits 49 ms × (2/(2·49/57) − 1).
	if want := 2 / 0.057; !near(c[1].Throughput, want, 1e-9) {
		t.Errorf("N=2: X %v, want %v (the host's ceiling)", c[1].Throughput, want)
	}
	slow := Network{Stations: []Station{{Name: "cpu:host", Servers: 2, Demand: 0.030, Spread: true}}}
	if c, _ := Overlapping(slow, 0.049, 2); c[1].Throughput != 2/0.049 {
		t.Errorf("30 ms on two cores within 49 ms: N=2 X %v, want 2/0.049 (one core each, no wait)", c[1].Throughput)
	}
}

// CPU-shaped: the host's two cores bind at 2/0.034 s; the per-process CPU
// and the slots overlap them inside a 40 ms latency.
func TestOverlappingConvergesToCeiling(t *testing.T) {
	net := Network{Stations: []Station{
		{Name: "cpu:host", Servers: 2, Demand: 0.034},
		{Name: "cpu:main", Servers: 1, Demand: 0.012},
		{Name: "cpu:worker", Servers: 1, Demand: 0.009},
		{Name: "slots:worker:w1", Servers: 15, Demand: 0.035},
		{Name: "slots:runner:w1", Servers: 10, Demand: 0.01},
	}}
	c, err := Overlapping(net, 0.04, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if x := c[len(c)-1].Throughput; !near(x, 2/0.034, 1e-6*x) || c[len(c)-1].Largest != "cpu:host" {
		t.Fatalf("N=2000: X %v at %s, want → %v at cpu:host", x, c[len(c)-1].Largest, 2/0.034)
	}
}

// Disjoint stations (latency = Σ D) but a multi-server station beside other
// queues: the finite-source wait is then an approximation of the exact
// marginal. Over this grid its throughput stays within 2 % of exact MVA
// (worst seen 1.65 %, 4 and 10 servers as near-tied bottlenecks).
func TestOverlappingNearExactWhenDisjoint(t *testing.T) {
	worst := 0.0
	for _, m1 := range []float64{2, 4, 16, 64} {
		for _, m2 := range []float64{1, 3, 10} {
			for _, d2 := range []float64{0.2, 1, 3} {
				for _, z := range []float64{0, 1, 10} {
					net := Network{Think: z, Stations: []Station{
						{Name: "a", Servers: m1, Demand: 1}, {Name: "b", Servers: m2, Demand: d2}, {Name: "c", Servers: 1, Demand: 0.3},
					}}
					worst = math.Max(worst, worstGap(t, net, 300))
				}
			}
		}
	}
	if worst > 0.02 {
		t.Fatalf("worst throughput gap %.4f, want ≤ 0.02", worst)
	}
	t.Logf("worst throughput gap to exact MVA: %.4f", worst)
}

func worstGap(t *testing.T, net Network, n int) float64 {
	t.Helper()
	exact := mustCurve(t)(Exact(net, n))
	above, below := gaps(exact, mustCurve(t)(Overlapping(net, net.TotalHold(), n)))
	return math.Max(above, below)
}

// mustCurve fails the test on an error and passes the curve on.
func mustCurve(t *testing.T) func([]Point, error) []Point {
	return func(c []Point, err error) []Point {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// gaps are the largest relative amounts by which approx's throughput rises
// above and falls below exact's, population by population.
func gaps(exact, approx []Point) (above, below float64) {
	for i := range exact {
		r := approx[i].Throughput/exact[i].Throughput - 1
		above, below = math.Max(above, r), math.Max(below, -r)
	}
	return above, below
}

type overlapCase struct {
	Network
	latency float64
}

// randomOverlaps draws networks of 1 to 5 stations, half of them spread,
// whose latency lies between MinLatency and a little over the sum of the
// holds, from a fixed seed.
func randomOverlaps(count int) []overlapCase {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]overlapCase, count)
	for i := range out {
		var net Network
		for k := range 1 + r.IntN(5) {
			m := []float64{0.5, 1, 1.5, 2, 4, 10, 50}[r.IntN(7)]
			spread := r.IntN(2) == 0
			net.Stations = append(net.Stations, Station{Name: fmt.Sprint(k), Servers: m, Demand: math.Exp(r.NormFloat64()), Spread: spread})
		}
		net.Think = float64(r.IntN(2)) * 2 * r.Float64()
		top := net.MinLatency()
		out[i] = overlapCase{Network: net, latency: top + 1.2*r.Float64()*(net.TotalHold()-top)}
	}
	return out
}
