package capacity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A runner's thread is a station that runs to end; main's and a worker's
// are not, nor are slots or the host's cores. It holds a task through the
// task's waits for a core, so its station keeps the share it ran (0.8, not
// its 0.94 alone), and cpu:host leaves out its 0.06 s.
func TestStationsRunnerThreadRunsToEnd(t *testing.T) {
	b := Bounds{Resources: []ResourceBound{
		{Resource: Resource{Name: HostCPU, Kind: KindCPU, Servers: 2, Demand: 0.2}},
		{Resource: Resource{Name: ProcessCPU("w1", ProcessRunner), Kind: KindCPU, Servers: 0.8, Demand: 0.06, Alone: 0.94}},
		{Resource: Resource{Name: ProcessCPU("w1", ProcessN8n), Kind: KindCPU, Servers: 0.8, Demand: 0.02, Alone: 0.94}},
		{Resource: Resource{Name: RunnerSlots("w1"), Kind: KindSlots, Servers: 20, Demand: 0.1}},
	}}
	want := map[string]Station{
		HostCPU:                         {Name: HostCPU, Servers: 2, Demand: 0.2 - 0.06, Spread: true},
		ProcessCPU("w1", ProcessRunner): {Name: ProcessCPU("w1", ProcessRunner), Servers: 0.8, Demand: 0.06, Spread: true, RunToEnd: true},
		ProcessCPU("w1", ProcessN8n):    {Name: ProcessCPU("w1", ProcessN8n), Servers: 0.94, Demand: 0.02, Spread: true},
		RunnerSlots("w1"):               {Name: RunnerSlots("w1"), Servers: 20, Demand: 0.1},
	}
	st := b.Stations()
	for _, s := range st {
		if s != want[s.Name] {
			t.Errorf("station %+v, want %+v", s, want[s.Name])
		}
	}
	if len(st) != len(want) {
		t.Errorf("%d stations, want %d", len(st), len(want))
	}
	b.Resources[0].Unknown = "no demand yet"
	if st := b.Stations(); len(st) != 3 || st[0].Servers != 0.8 || st[1].Servers != 0.8 {
		t.Errorf("without the host: %+v, want every thread at the share it ran", st)
	}
}

// One thread serving Code tasks of equal work, first come first served,
// to users who each spend a while elsewhere between tasks (z seconds on
// average): the M/D/1//N queue, played out over 200,000 tasks with a fixed
// seed. How long they wait depends on how much the time elsewhere varies:
// most when it is exponential, least when it is constant. The run-to-end
// MVA lands between the two, and near the Erlang-4 case (the time
// elsewhere a sum of a few steps, as main, Redis, the worker and
// PostgreSQL are); the MVA that waits the whole demand of the task in
// service (exponential service) waits longer than any of them.
func TestRunToEndMatchesConstantService(t *testing.T) {
	const d, z = 0.1, 0.1
	for _, users := range []int{2, 3} {
		play := func(stages int) float64 {
			return playConstantService(users, d, z, stages, 200_000, rand.New(rand.NewPCG(1, 2)))
		}
		most, erlang4, least := play(1), play(4), play(0)
		mva := func(runToEnd bool) float64 {
			net := Network{Think: z, Stations: []Station{{Name: "cpu:w1/runner", Servers: 1, Demand: d, RunToEnd: runToEnd}}}
			c, err := Exact(net, users)
			if err != nil {
				t.Fatal(err)
			}
			return c[users-1].Throughput
		}
		if x := mva(true); x <= most || x > least*1.001 || math.Abs(x/erlang4-1) > 0.03 {
			t.Errorf("N=%d: run-to-end MVA %.3f/s, want over %.3f/s, at most %.3f/s and within 3 %% of %.3f/s", users, x, most, least, erlang4)
		}
		if x := mva(false); x >= most*0.97 {
			t.Errorf("N=%d: whole-demand MVA %.3f/s, want over 3 %% below the %.3f/s of exponential time elsewhere", users, x, most)
		}
	}
}

// The run-to-end wait at two users is D·(Q(1) − U(1)/2): one user alone
// holds the thread D of every D + Z seconds.
func TestRunToEndWaitAtTwoUsers(t *testing.T) {
	net := Network{Stations: []Station{{Name: "cpu:w1/runner", Servers: 1, Demand: 0.1, RunToEnd: true}}}
	c, err := Overlapping(net, 0.2, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := 0.1 / 0.2 // Q(1) = U(1): the one user is at the thread or not
	if w := c[1].Stations[0].Wait; math.Abs(w-0.1*(q-q/2)) > 1e-12 {
		t.Errorf("wait %v, want %v", w, 0.1*(q-q/2))
	}
}

// playConstantService plays users cycling between time elsewhere of mean
// z (an Erlang distribution of the given stages; 0 stages is constant)
// and one first-come-first-served server of constant service d, and
// returns the completions per second over the given number of tasks.
func playConstantService(users int, d, z float64, stages, tasks int, rng *rand.Rand) float64 {
	elsewhere := func() float64 {
		if stages == 0 {
			return z
		}
		var v float64
		for range stages {
			v += rng.ExpFloat64() * z / float64(stages)
		}
		return v
	}
	arrive := make([]float64, users)
	for i := range arrive {
		arrive[i] = rng.Float64() * (z + d) // spread, so constant times do not start in step
	}
	var free float64
	for range tasks {
		next := 0
		for i, a := range arrive {
			if a < arrive[next] {
				next = i
			}
		}
		free = math.Max(arrive[next], free) + d
		arrive[next] = free + elsewhere()
	}
	return float64(tasks) / free
}
