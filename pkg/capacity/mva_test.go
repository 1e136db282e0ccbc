package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// jain is the timesharing system of Jain (1991), The Art of Computer Systems
// Performance Analysis, Example 34.2: think time 4 s; CPU S = 0.125 s,
// V = 16; disk A S = 0.3 s, V = 10; disk B S = 0.2 s, V = 5.
var jain = Network{
	Think: 4,
	Stations: []Station{
		{Name: "cpu", Servers: 1, Demand: 0.125 * 16},
		{Name: "disk A", Servers: 1, Demand: 0.3 * 10},
		{Name: "disk B", Servers: 1, Demand: 0.2 * 5},
	},
}

var jainVisits = []float64{16, 10, 5}

// Jain (1991), Table 34.1: per N, the response time per visit at the CPU,
// disk A and disk B, the system response time, the throughput and the
// three queue lengths.
var jainTable = map[int][8]float64{
	1:  {0.125, 0.300, 0.200, 6.000, 0.100, 0.200, 0.300, 0.100},
	2:  {0.150, 0.390, 0.220, 7.400, 0.175, 0.421, 0.684, 0.193},
	3:  {0.178, 0.505, 0.239, 9.088, 0.229, 0.651, 1.158, 0.273},
	4:  {0.206, 0.647, 0.255, 11.051, 0.266, 0.878, 1.721, 0.338},
	5:  {0.235, 0.816, 0.268, 13.256, 0.290, 1.088, 2.365, 0.388},
	17: {0.370, 3.962, 0.300, 47.045, 0.333, 1.974, 13.195, 0.499},
	18: {0.372, 4.259, 0.300, 50.032, 0.333, 1.981, 14.187, 0.499},
	19: {0.373, 4.556, 0.300, 53.022, 0.333, 1.987, 15.181, 0.500},
	20: {0.373, 4.854, 0.300, 56.016, 0.333, 1.991, 16.177, 0.500},
}

// printed reports whether got rounds to want at three decimals.
func printed(got, want float64) bool { return math.Abs(got-want) <= 0.0005+1e-12 }

func TestExactReproducesJainTable341(t *testing.T) {
	curve, err := Exact(jain, 20)
	if err != nil {
		t.Fatal(err)
	}
	for n, row := range jainTable {
		p := curve[n-1]
		got := [8]float64{3: p.Response, 4: p.Throughput}
		for k, s := range p.Stations {
			got[k] = (jain.Stations[k].Demand + s.Wait) / jainVisits[k]
			got[5+k] = s.Queue
		}
		for i := range row {
			if !printed(got[i], row[i]) {
				t.Errorf("N=%d column %d: got %.4f, Table 34.1 prints %.3f", n, i+1, got[i], row[i])
			}
		}
	}
}

// Jain (1991), Example 34.2 and Lazowska et al. (1984), ch. 5: D = 6 s,
// D_max = 3 s, so X(N) ≤ min(N/10, 1/3) and N* = 10/3.
func TestJainAsymptoticBounds(t *testing.T) {
	a, err := NewAsymptotic(jain.Think+jain.TotalHold(), jain.Ceiling())
	if err != nil {
		t.Fatal(err)
	}
	if !near(a.Knee(), 10.0/3, 1e-12) || !near(a.Throughput(2), 0.2, 1e-12) || !near(a.Throughput(20), 1.0/3, 1e-12) {
		t.Fatalf("knee %v, X(2) ≤ %v, X(20) ≤ %v", a.Knee(), a.Throughput(2), a.Throughput(20))
	}
	if !near(a.MinCycle(20)-jain.Think, 56, 1e-12) || !near(a.MinCycle(1)-jain.Think, 6, 1e-12) {
		t.Fatalf("response bounds %v %v, want max(D, N·Dmax − Z)", a.MinCycle(20)-jain.Think, a.MinCycle(1)-jain.Think)
	}
	curve, _ := Exact(jain, 40)
	for _, p := range curve {
		if p.Throughput > a.Throughput(p.N)*(1+1e-12) || p.Response+jain.Think < a.MinCycle(p.N)*(1-1e-12) {
			t.Errorf("N=%d: X %v R %v beyond the bounds", p.N, p.Throughput, p.Response)
		}
	}
}

// All stations single-server and Base = Z + ΣD: the overlap form is classic
// exact MVA, term for term.
func TestOverlappingWithDisjointStationsIsExact(t *testing.T) {
	exact, _ := Exact(jain, 50)
	over, err := Overlapping(jain, jain.TotalHold(), 50)
	if err != nil {
		t.Fatal(err)
	}
	for i := range exact {
		if !near(over[i].Throughput, exact[i].Throughput, 1e-12*exact[i].Throughput) {
			t.Fatalf("N=%d: overlap %v, exact %v", i+1, over[i].Throughput, exact[i].Throughput)
		}
	}
}

func TestLargestQueue(t *testing.T) {
	curve, _ := Exact(jain, 20)
	if curve[0].Largest != "disk A" || curve[19].Largest != "disk A" {
		t.Fatalf("largest queue %s, %s; want disk A", curve[0].Largest, curve[19].Largest)
	}
}

func TestMVARejects(t *testing.T) {
	good := Station{Name: "s", Servers: 2, Demand: 1}
	cases := map[string]struct {
		net     Network
		n       int
		latency float64
		want    string
	}{
		"no stations":      {Network{}, 5, 1, "1 to"},
		"zero population":  {Network{Stations: []Station{good}}, 0, 1, "population"},
		"above the cap":    {Network{Stations: []Station{good}}, MaxPopulation + 1, 1, "population"},
		"zero servers":     {Network{Stations: []Station{{Name: "s", Demand: 1}}}, 5, 1, "servers"},
		"NaN servers":      {Network{Stations: []Station{{Name: "s", Servers: math.NaN(), Demand: 1}}}, 5, 1, "servers"},
		"negative demand":  {Network{Stations: []Station{{Name: "s", Servers: 1, Demand: -1}}}, 5, 1, "demand"},
		"NaN demand":       {Network{Stations: []Station{{Name: "s", Servers: 1, Demand: math.NaN()}}}, 5, 1, "demand"},
		"infinite demand":  {Network{Stations: []Station{{Name: "s", Servers: 1, Demand: math.Inf(1)}}}, 5, 1, "demand"},
		"negative think":   {Network{Stations: []Station{good}, Think: -1}, 5, 1, "think"},
		"unnamed":          {Network{Stations: []Station{{Servers: 1, Demand: 1}}}, 5, 1, "name"},
		"named twice":      {Network{Stations: []Station{good, good}}, 5, 2, "twice"},
		"latency too low":  {Network{Stations: []Station{good}}, 5, 0.5, "latency"},
		"latency NaN":      {Network{Stations: []Station{good}}, 5, math.NaN(), "latency"},
		"slow server hold": {Network{Stations: []Station{{Name: "s", Servers: 0.5, Demand: 1}}}, 5, 1.5, "latency"},
	}
	for name, c := range cases {
		_, err := Overlapping(c.net, c.latency, c.n)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Overlapping err %v, want ErrInvalid mentioning %q", name, err, c.want)
		}
		if c.want == "latency" {
			continue
		}
		if _, err := Exact(c.net, c.n); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Exact err %v, want ErrInvalid", name, err)
		}
	}
	if _, err := Exact(Network{Stations: []Station{{Name: "s", Servers: 1}}}, 3); !errors.Is(err, ErrInvalid) {
		t.Errorf("a zero-second cycle: err %v", err)
	}
}
