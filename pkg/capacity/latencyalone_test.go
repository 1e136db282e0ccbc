package capacity

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// Solving for the latency undoes Overlapping: the response a latency gives
// at n users leads back to that latency, below the knee, at it and past it.
// Far past the knee the response hardly depends on the latency, so the
// latency comes back to 1e-6 and the response it gives to 1e-9.
func TestLatencyAloneInvertsOverlapping(t *testing.T) {
	_, lab := labShaped(t)
	cpu := Network{Stations: []Station{
		{Name: "cpu:host", Servers: 2, Demand: 0.034},
		{Name: "cpu:main", Servers: 1, Demand: 0.012},
		{Name: "slots:worker:w1", Servers: 15, Demand: 0.035},
	}}
	for _, tc := range []struct {
		name    string
		net     Network
		latency float64
	}{{"runner-bound lab", lab, 1.26}, {"cpu-bound", cpu, 0.05}, {"cpu-bound with think time", Network{Stations: cpu.Stations, Think: 0.2}, 0.04}} {
		for _, n := range []int{1, 2, 5, 6, 9, 30} {
			c, err := Overlapping(tc.net, tc.latency, n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := LatencyAlone(tc.net, n, c[n-1].Response)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Overlapping(tc.net, got, n)
			if err != nil {
				t.Fatal(err)
			}
			want := c[n-1].Response
			if math.Abs(got-tc.latency) > 1e-6*tc.latency || math.Abs(back[n-1].Response-want) > 1e-9*want {
				t.Errorf("%s N=%d: latency %v from response %v (gives %v), want %v", tc.name, n, got, want, back[n-1].Response, tc.latency)
			}
		}
	}
}

// One user never waits: the latency is the response itself.
func TestLatencyAloneOneUserIsTheResponse(t *testing.T) {
	_, lab := labShaped(t)
	if got, err := LatencyAlone(lab, 1, 1.3); err != nil || got != 1.3 {
		t.Fatalf("N=1: %v, %v; want 1.3 exactly", got, err)
	}
}

// A response shorter than the longest hold, or too short for the waits
// at n users, gives the longest hold: Overlapping accepts nothing less.
func TestLatencyAloneNeverBelowTheLongestHold(t *testing.T) {
	_, lab := labShaped(t)
	for _, tc := range []struct {
		n        int
		response float64
	}{{1, 0.9}, {1, 1.1}, {40, 1.2}} {
		got, err := LatencyAlone(lab, tc.n, tc.response)
		if err != nil || got != lab.MaxHold() {
			t.Errorf("N=%d response %v: %v, %v; want the longest hold %v", tc.n, tc.response, got, err, lab.MaxHold())
		}
	}
}

func TestLatencyAloneRejects(t *testing.T) {
	_, lab := labShaped(t)
	for _, tc := range []struct {
		net      Network
		n        int
		response float64
	}{{lab, 0, 1}, {lab, 1, 0}, {lab, 1, math.NaN()}, {lab, 1, math.Inf(1)}, {Network{}, 1, 1}} {
		if _, err := LatencyAlone(tc.net, tc.n, tc.response); !errors.Is(err, ErrInvalid) {
			t.Errorf("N=%d response %v: err %v, want ErrInvalid", tc.n, tc.response, err)
		}
	}
}

// The host's cores are shared by n8n's processes side by side: a measured
// 49 ms request with 64 ms of host CPU per execution (1 VU, two cores) is
// possible, and the latency is that response, not the host's 64 ms. Below
// D/m (32 ms) it is not, and a slot is held whole.
func TestLatencyAloneSpreadsCPUOverCores(t *testing.T) {
	b := Bounds{Resources: []ResourceBound{
		{Resource: Resource{Name: "cpu:host", Kind: KindCPU, Servers: 2, Demand: 0.064}},
		{Resource: Resource{Name: "slots:worker:w1", Kind: KindSlots, Servers: 15, Demand: 0.011}},
	}}
	net := Network{Stations: b.Stations()}
	if !net.Stations[0].Spread || net.Stations[1].Spread {
		t.Fatalf("stations %+v: want the CPU one spread, the slots not", net.Stations)
	}
	if got := net.MinLatency(); got != 0.032 {
		t.Fatalf("MinLatency %v, want 0.032 (64 ms over two cores)", got)
	}
	if got, err := LatencyAlone(net, 1, 0.049); err != nil || got != 0.049 {
		t.Errorf("N=1 response 0.049: %v, %v; want 0.049", got, err)
	}
	if got, err := LatencyAlone(net, 1, 0.020); err != nil || got != 0.032 {
		t.Errorf("N=1 response 0.020: %v, %v; want MinLatency 0.032", got, err)
	}
	if c, err := Overlapping(net, 0.049, 1); err != nil || math.Abs(c[0].Throughput-1/0.049) > 1e-9 {
		t.Errorf("Overlapping at 49 ms: %v, %v; want 1/0.049 at one user", c, err)
	}
	if _, err := Overlapping(net, 0.031, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Overlapping at 31 ms: %v, want ErrInvalid", err)
	}
	whole := Network{Stations: []Station{{Name: "slots:worker:w1", Servers: 15, Demand: 1.02}}}
	if got := whole.MinLatency(); got != 1.02 {
		t.Errorf("slots MinLatency %v, want the whole hold 1.02", got)
	}
}

// A slot's hold is measured under load: a job keeps its worker slot while
// its task waits for the runner's thread. At two users that hold is about
// the response itself, and the latency alone is below it, by the waits.
func TestLatencyAloneBelowASlotHoldThatHoldsWaits(t *testing.T) {
	cpu := []Station{
		{Name: "cpu:host", Servers: 1.9, Demand: 0.15, Spread: true},
		{Name: "cpu:runner", Servers: 0.94, Demand: 0.081, Spread: true, RunToEnd: true},
	}
	const alone = 0.15
	c, err := Overlapping(Network{Stations: cpu}, alone, 2)
	if err != nil {
		t.Fatal(err)
	}
	response := c[1].Response
	net := Network{Stations: append(slices.Clone(cpu), Station{Name: "slots:worker:w1", Servers: 15, Demand: response})}
	got, err := LatencyAlone(net, 2, response)
	if err != nil || math.Abs(got-alone) > 1e-6 {
		t.Fatalf("two users, response %v, worker slot held as long: %v, %v; want %v, the response less the waits for a CPU", response, got, err, alone)
	}
	if f, err := net.Floor(1); err != nil || f != response {
		t.Errorf("one user: floor %v, %v; want the slot's whole hold %v", f, err, response)
	}
}

// Below a CPU's demand the response grows again as the latency shrinks:
// a response the network answers twice gives the larger latency, and one
// below every answer the latency whose response is least (at most the
// response: the waits are never negative).
func TestLatencyAloneWhereTheResponseIsNotMonotone(t *testing.T) {
	net := Network{Stations: []Station{
		{Name: "cpu:host", Servers: 1.9, Demand: 0.207, Spread: true},
		{Name: "cpu:runner", Servers: 0.94, Demand: 0.066, Spread: true, RunToEnd: true},
		{Name: "slots:worker:w1", Servers: 15, Demand: 0.2},
	}}
	response := func(l float64) float64 {
		p, err := net.heldAt(l, 2)
		if err != nil {
			t.Fatal(err)
		}
		return p.Response
	}
	if !(response(0.12) > response(0.2) && response(0.24) > response(0.2)) {
		t.Fatalf("responses %v, %v, %v at 0.12, 0.2 and 0.24 s: want the least in the middle", response(0.12), response(0.2), response(0.24))
	}
	want := 0.23
	got, err := LatencyAlone(net, 2, response(want))
	if err != nil || math.Abs(got-want) > 1e-6 {
		t.Errorf("response %v: latency %v, %v; want the larger answer %v", response(want), got, err, want)
	}
	least, err := LatencyAlone(net, 2, 0.225)
	if err != nil || !(least < 0.225) || response(least) <= 0.225 {
		t.Fatalf("response 0.225 s: latency %v (gives %v), %v; want one below 0.225 s, whose response is above it", least, response(least), err)
	}
	for _, l := range []float64{least - 0.005, least + 0.005} {
		if response(l) < response(least) {
			t.Errorf("response 0.225 s, below every answer: latency %v gives %v, but %v gives %v", least, response(least), l, response(l))
		}
	}
}
