package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func slotBound(t *testing.T) []Resource {
	t.Helper()
	// worker 15 slots and runner 20 slots, job 87.4 ms: the worker binds at
	// about 171.6/s.
	cl := oneWorker(15, 20)
	cl.Service = ServiceTime{Job: 87400 * time.Microsecond, Task: 20 * time.Millisecond}
	return SlotResources(evaluated(t, cl))
}

// The host's CPU: 2 cores and 34 ms of CPU per execution bound the cluster
// at 58.8/s while the slots would allow 171.6/s.
func TestCombineCPUBinds(t *testing.T) {
	cpu := []Resource{
		{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.034},
		{Name: ContainerCPU("main"), Kind: KindCPU, Servers: 1, Demand: 0.012},
	}
	b, err := Combine(slotBound(t), cpu)
	if err != nil {
		t.Fatal(err)
	}
	if !near(b.Ceiling, 2/0.034, 1e-9) || b.Bottleneck() != HostCPU || len(b.Binding) != 1 {
		t.Fatalf("ceiling %v binding %v", b.Ceiling, b.Binding)
	}
	if !near(b.SlotCeiling, 15/0.0874, 1e-9) {
		t.Fatalf("slot ceiling %v, want %v", b.SlotCeiling, 15/0.0874)
	}
	if len(b.Resources) != 4 || b.Resources[2].Name != HostCPU || !b.Resources[2].Binding || b.Resources[0].Binding {
		t.Fatalf("resources %+v", b.Resources)
	}
}

// A CPU demand not yet measured leaves the ceiling at the slot bound.
func TestCombineUnknownCPU(t *testing.T) {
	cpu := []Resource{{Name: HostCPU, Kind: KindCPU, Servers: 2, Unknown: "fewer than 20 executions in the window"}}
	b, err := Combine(slotBound(t), cpu)
	if err != nil {
		t.Fatal(err)
	}
	if b.Ceiling != b.SlotCeiling || b.Bottleneck() != "slots:worker:w1" {
		t.Fatalf("ceiling %v slot %v binding %v", b.Ceiling, b.SlotCeiling, b.Binding)
	}
	if u := b.Unknown(); len(u) != 1 || u[0] != HostCPU || b.Resources[2].Ceiling != 0 {
		t.Fatalf("unknown %v, resource %+v", u, b.Resources[2])
	}
}

// Ceilings within BindingTolerance all bind and are listed in Resources
// order (slots first), even when a later one is the smaller; a gap just past
// the tolerance does not tie.
func TestCombineTieRule(t *testing.T) {
	slots := slotBound(t)
	top := slots[0].Ceiling()
	tied := Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 2 * (1 + BindingTolerance/2) / top}
	apart := Resource{Name: ContainerCPU("db"), Kind: KindCPU, Servers: 1, Demand: 1 / (top * (1 + 10*BindingTolerance))}
	b, err := Combine(slots, []Resource{tied, apart})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"slots:worker:w1", HostCPU}
	if len(b.Binding) != 2 || b.Binding[0] != want[0] || b.Binding[1] != want[1] {
		t.Fatalf("binding %v, want %v", b.Binding, want)
	}
	if b.Ceiling != tied.Ceiling() || b.Ceiling >= top {
		t.Fatalf("ceiling %v, want the host's %v, just below the slots' %v", b.Ceiling, tied.Ceiling(), top)
	}
}

// A demand of zero bounds nothing.
func TestCombineZeroDemand(t *testing.T) {
	idle := Resource{Name: ContainerCPU("redis"), Kind: KindCPU, Servers: 1, Demand: 0}
	b, err := Combine(slotBound(t), []Resource{idle})
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(b.Resources[2].Ceiling, 1) || b.Resources[2].Binding || b.Bottleneck() != "slots:worker:w1" {
		t.Fatalf("got %+v", b)
	}
	b, _ = Combine(nil, []Resource{idle})
	if b.HasCeiling() || b.Bottleneck() != "" {
		t.Fatalf("only an idle resource: %+v", b)
	}
	if st := b.Stations(); len(st) != 0 {
		t.Fatalf("stations %+v, want none", st)
	}
}

func TestCombineRejects(t *testing.T) {
	host := Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.03}
	cases := map[string]struct {
		slots, cpu []Resource
		want       string
	}{
		"named twice":  {nil, []Resource{host, host}, "twice"},
		"cpu as slots": {[]Resource{host}, nil, "kind cpu in the slots list"},
		"NaN demand":   {nil, []Resource{{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: math.NaN()}}, "demand"},
		"zero servers": {nil, []Resource{{Name: HostCPU, Kind: KindCPU, Demand: 0.1}}, "servers"},
	}
	for name, c := range cases {
		_, err := Combine(c.slots, c.cpu)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func TestBoundsStations(t *testing.T) {
	cpu := []Resource{
		{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.034},
		{Name: ContainerCPU("db"), Kind: KindCPU, Servers: 1, Unknown: "no cgroup counter"},
	}
	b, _ := Combine(slotBound(t), cpu)
	st := b.Stations()
	if len(st) != 3 || st[2] != (Station{Name: HostCPU, Servers: 2, Demand: 0.034, Spread: true}) || st[0].Spread {
		t.Fatalf("stations %+v", st)
	}
}

func TestAsymptoticRejects(t *testing.T) {
	for _, c := range [][2]float64{{0, 1}, {1, 0}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		if _, err := NewAsymptotic(c[0], c[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewAsymptotic(%v, %v): err %v", c[0], c[1], err)
		}
	}
}

// A thread that ran 0.5 of its runnable time has 0.47 cores under this
// load, but its station holds it at its 0.94 alone while cpu:host, where
// it waited for a core, is a station too; without the host it keeps 0.47.
func TestBoundsStationsHoldAThreadAtItsCoresAlone(t *testing.T) {
	thread := Resource{Name: ProcessCPU("w1", ProcessN8n), Kind: KindCPU, Servers: 0.47, Alone: 0.94, Demand: 0.02}
	host := Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.05}
	b, err := Combine(nil, []Resource{host, thread})
	if err != nil {
		t.Fatal(err)
	}
	if st := b.Stations(); len(st) != 2 || st[1].Servers != 0.94 || math.Abs(b.Resources[1].Ceiling-23.5) > 1e-9 {
		t.Fatalf("with the host: stations %+v, bound %+v", st, b.Resources[1])
	}
	host.Unknown = "no demand yet"
	b, _ = Combine(nil, []Resource{host, thread})
	if st := b.Stations(); len(st) != 1 || st[0].Servers != 0.47 {
		t.Fatalf("host unknown: stations %+v", st)
	}
	thread.Alone = math.NaN()
	if _, err := Combine(nil, []Resource{thread}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN cores alone: err %v", err)
	}
}

// A worker slot held 0.78 s under load (its job waited for the runner's
// core) is held 0.21 s, one execution's latency alone; a slot of half a
// server, held 0.4 s, is held 0.21 s at half speed. The runner slot's
// 0.09 s and the host's spread CPU stay, the original is untouched, and
// Overlapping takes the result at that latency.
func TestHeldAtMost(t *testing.T) {
	net := Network{Think: 1, Stations: []Station{
		{Name: WorkerSlots("w1"), Servers: 15, Demand: 0.78},
		{Name: RunnerSlots("w1"), Servers: 20, Demand: 0.09},
		{Name: HostCPU, Servers: 2, Demand: 0.4, Spread: true},
		{Name: "half", Servers: 0.5, Demand: 0.2},
	}}
	got := net.HeldAtMost(0.21)
	for k, want := range []float64{0.21, 0.09, 0.4, 0.105} {
		if math.Abs(got.Stations[k].Demand-want) > 1e-12 {
			t.Errorf("%s: demand %v, want %v", got.Stations[k].Name, got.Stations[k].Demand, want)
		}
	}
	if got.Think != 1 || net.Stations[0].Demand != 0.78 {
		t.Errorf("think %v, original worker slot %v: want 1 and 0.78 unchanged", got.Think, net.Stations[0].Demand)
	}
	if _, err := Overlapping(got, 0.21, 8); err != nil {
		t.Errorf("Overlapping at the latency: %v", err)
	}
}
