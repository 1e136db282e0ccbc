package capacity

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Bolch, Greiner, de Meer & Trivedi, Queueing Networks and Markov Chains
// (2nd ed., 2006), Example 8.4: N = 3 users; station 1 has two servers
// (S = 0.5 s, V = 1), stations 2 and 3 one each (S = 0.6 s and 0.8 s,
// V = 0.5), station 4 is a delay (S = 1 s, V = 1). The book prints the
// queue lengths 0.624, 0.473, 0.686 and 1.217 and the throughputs 1.218,
// 0.609, 0.609 and 1.218 (the same figures appear in the tests of
// M. Marzolla's Octave queueing package, qncsmva).
func TestExactReproducesBolchExample84(t *testing.T) {
	net := Network{Think: 1, Stations: []Station{
		{Name: "1", Servers: 2, Demand: 0.5},
		{Name: "2", Servers: 1, Demand: 0.6 * 0.5},
		{Name: "3", Servers: 1, Demand: 0.8 * 0.5},
	}}
	curve, err := Exact(net, 3)
	if err != nil {
		t.Fatal(err)
	}
	p := curve[2]
	for k, want := range []float64{0.624, 0.473, 0.686} {
		if !printed(p.Stations[k].Queue, want) {
			t.Errorf("station %d: queue %.4f, the book prints %.3f", k+1, p.Stations[k].Queue, want)
		}
	}
	// The delay holds X·Z users; the book prints 1.217 for it and 1.218 for
	// X itself, the same quantity, so X is checked to one printed unit.
	if !printed(p.Throughput*net.Think, 1.217) || math.Abs(p.Throughput-1.218) > 0.001 {
		t.Errorf("X = %.5f, the book prints 1.218 (and X·Z = 1.217)", p.Throughput)
	}
	if !printed(p.Throughput*0.5, 0.609) {
		t.Errorf("stations 2 and 3 complete %.4f/s, the book prints 0.609", p.Throughput*0.5)
	}
	// The product form summed over all 20 states of 3 users gives
	// X = G(2)/G(3) = 1.2174606338449274.
	if !near(p.Throughput, 1.2174606338449274, 1e-13) {
		t.Errorf("X = %.16f, state enumeration gives 1.2174606338449274", p.Throughput)
	}
}

// finiteSourceThroughput is the throughput of the finite-source queue
// M/M/m//N: N users who think Z seconds and then need D seconds of one of m
// servers (m may be fractional: the service rate with j users present is
// min(j, m)/D). It is a birth–death process, so p(j) ∝ N!/(N−j)! · (D/Z)^j
// / β(j) with β(j) = Π_{i≤j} min(i, m), and X = (N − E[J]) / Z (Kleinrock,
// Queueing Systems vol. 1, 1975, ch. 3, finite-source multi-server queues;
// Gross & Harris, Fundamentals of Queueing Theory, finite-source queues).
func finiteSourceThroughput(n int, m, d, z float64) float64 {
	logs := make([]float64, n+1)
	for j := 1; j <= n; j++ {
		logs[j] = logs[j-1] + math.Log(float64(n-j+1)*d/z) - math.Log(math.Min(float64(j), m))
	}
	top := logs[0]
	for _, l := range logs {
		top = math.Max(top, l)
	}
	var sum, mean float64
	for j, l := range logs {
		w := math.Exp(l - top)
		sum += w
		mean += float64(j) * w
	}
	return (float64(n) - mean/sum) / z
}

type finiteSourceCase struct {
	m, n int
	d, z float64
}

func finiteSourceGrid() []finiteSourceCase {
	var out []finiteSourceCase
	for _, m := range []int{1, 2, 5, 20, 100} {
		for _, n := range []int{1, 3, 10, 50, 100, 250, 500} {
			for _, z := range []float64{0.5, 4, 40} {
				out = append(out, finiteSourceCase{m: m, n: n, d: 1, z: z})
			}
		}
	}
	return out
}

// One station of m servers and a think time is the finite-source queue, so
// both MVA forms must give its closed-form throughput, also at m = 100 and
// N = 500 where the servers are nearly always busy.
func TestMultiServerMatchesFiniteSourceQueue(t *testing.T) {
	for _, c := range finiteSourceGrid() {
		net := Network{Think: c.z, Stations: []Station{{Name: "s", Servers: float64(c.m), Demand: c.d}}}
		exact, err := Exact(net, c.n)
		if err != nil {
			t.Fatal(err)
		}
		over, err := Overlapping(net, c.d, c.n)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, c.n / 2, c.n} {
			if n < 1 {
				continue
			}
			want := finiteSourceThroughput(n, float64(c.m), c.d, c.z)
			for form, got := range map[string]float64{"exact": exact[n-1].Throughput, "overlap": over[n-1].Throughput} {
				if math.Abs(got-want) > 1e-9*want {
					t.Errorf("m=%d N=%d Z=%v %s: X %.12g, closed form %.12g", c.m, n, c.z, form, got, want)
				}
			}
		}
	}
}

// m = 100 and N = 500 with a short think time: the servers are busy all
// the time and 450 users queue at the station.
func TestHighUtilizationLargeStation(t *testing.T) {
	net := Network{Think: 0.5, Stations: []Station{{Name: "s", Servers: 100, Demand: 1}}}
	exact, _ := Exact(net, 500)
	over, _ := Overlapping(net, 1, 500)
	for _, p := range []Point{exact[499], over[499]} {
		if !near(p.Stations[0].Utilization, 1, 1e-12) || !near(p.Stations[0].Queue, 450, 1e-6) {
			t.Fatalf("utilization %v queue %v at N=500, want 1 and N − X·Z = 450", p.Stations[0].Utilization, p.Stations[0].Queue)
		}
	}
}

// No think time: the station holds every user, X(N) = min(N, m)/D; a
// station of zero demand changes nothing.
func TestNoThinkTime(t *testing.T) {
	net := Network{Stations: []Station{{Name: "s", Servers: 3, Demand: 2}, {Name: "idle", Servers: 1}}}
	exact, err := Exact(net, 10)
	if err != nil {
		t.Fatal(err)
	}
	over, err := Overlapping(net, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 10; n++ {
		want := float64(min(n, 3)) / 2
		if !near(exact[n-1].Throughput, want, 1e-12) || !near(over[n-1].Throughput, want, 1e-12) {
			t.Errorf("N=%d: exact %v overlap %v, want %v", n, exact[n-1].Throughput, over[n-1].Throughput, want)
		}
		if exact[n-1].Stations[1].Queue != 0 || exact[n-1].Largest != "s" {
			t.Errorf("N=%d: %+v", n, exact[n-1])
		}
	}
}

// A cgroup quota of 1.5 or 0.5 CPUs: the station serves min(j, m)/D.
func TestFractionalServers(t *testing.T) {
	for _, m := range []float64{0.5, 1.5, 2.5} {
		net := Network{Think: 0.2, Stations: []Station{{Name: "cpu", Servers: m, Demand: 0.1}}}
		exact, err := Exact(net, 40)
		if err != nil {
			t.Fatal(err)
		}
		over, err := Overlapping(net, net.Stations[0].Hold(), 40)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 10, 40} {
			want := finiteSourceThroughput(n, m, 0.1, 0.2)
			if !near(exact[n-1].Throughput, want, 1e-9*want) || !near(over[n-1].Throughput, want, 1e-9*want) {
				t.Errorf("m=%v N=%d: exact %v overlap %v, closed form %v", m, n, exact[n-1].Throughput, over[n-1].Throughput, want)
			}
		}
		if u := exact[39].Stations[0].Utilization; u > 1+1e-12 {
			t.Errorf("m=%v: utilization %v above 1", m, u)
		}
	}
}

// A curve past MaxWork gets ErrInvalid, not minutes of work.
func TestWorkBudget(t *testing.T) {
	var wide Network
	for i := range MaxStations {
		wide.Stations = append(wide.Stations, Station{Name: fmt.Sprint(i), Servers: 5000, Demand: 1})
	}
	if _, err := Exact(wide, MaxPopulation); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "fewer users") {
		t.Fatalf("Exact: err %v", err)
	}
	net := Network{Stations: []Station{{Name: "a", Servers: 50, Demand: 1}, {Name: "b", Servers: 50, Demand: 1}}}
	_, err := solve(net, normalized(net), 1, 2000, newFittedMarginals(2), 10_000)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "fewer users") {
		t.Fatalf("Overlapping: err %v", err)
	}
}
