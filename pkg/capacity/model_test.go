package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func oneWorker(conc int, limits ...int) Cluster {
	w := Worker{Name: "w1", Concurrency: conc}
	for _, l := range limits {
		w.Runners = append(w.Runners, Runner{Limit: l})
	}
	return Cluster{Workers: []Worker{w}}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The seed's isolation experiment: worker 15, 3 s tasks, only the runner
// limit changes.
func TestSeedIsolationTable(t *testing.T) {
	cases := []struct {
		limit      int
		want       float64
		bottleneck Bottleneck
		effective  int
	}{
		{20, 5.00, BottleneckWorker, 15},
		{10, 3.33, BottleneckRunner, 10},
		{5, 1.67, BottleneckRunner, 5},
		{2, 0.67, BottleneckRunner, 2},
	}
	for _, c := range cases {
		cl := oneWorker(15, c.limit)
		cl.Service = Single(3 * time.Second)
		v, err := Evaluate(cl)
		if err != nil {
			t.Fatal(err)
		}
		if !near(v.Ceiling, c.want, 0.005) {
			t.Errorf("limit %d: ceiling %.4f, want %.2f", c.limit, v.Ceiling, c.want)
		}
		w := v.Workers[0]
		if w.Bottleneck != c.bottleneck || w.Effective != c.effective || v.Effective != c.effective {
			t.Errorf("limit %d: bottleneck %s effective %d, want %s %d", c.limit, w.Bottleneck, w.Effective, c.bottleneck, c.effective)
		}
	}
}

// Runner 10 under a worker of 80 with 24 s jobs completes 25 per minute.
func TestSeedRunnerCapsBigWorker(t *testing.T) {
	cl := oneWorker(80, 10)
	cl.Service = Single(24 * time.Second)
	v, err := Evaluate(cl)
	if err != nil {
		t.Fatal(err)
	}
	if perMin := v.Ceiling * 60; !near(perMin, 25, 1e-9) {
		t.Fatalf("ceiling %.3f/min, want 25", perMin)
	}
	if v.Workers[0].Bottleneck != BottleneckRunner {
		t.Fatalf("bottleneck %s, want runner", v.Workers[0].Bottleneck)
	}
}

func TestRunnerCapacitySumsRunners(t *testing.T) {
	v, err := Evaluate(oneWorker(7, 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	w := v.Workers[0]
	if w.RunnerCapacity != 5 || w.Effective != 5 || w.Bottleneck != BottleneckRunner {
		t.Fatalf("got capacity %d effective %d %s, want 5 5 runner", w.RunnerCapacity, w.Effective, w.Bottleneck)
	}
	if v.HasCeiling() || v.Ceiling != 0 {
		t.Fatalf("no service time given, yet ceiling %v", v.Ceiling)
	}
}

func TestWorkerWithoutRunner(t *testing.T) {
	cl := Cluster{
		Workers: []Worker{
			{Name: "a", Concurrency: 15, Runners: []Runner{{Limit: 10}}},
			{Name: "b", Concurrency: 15},
		},
		Service: Single(time.Second),
	}
	v, err := Evaluate(cl)
	if err != nil {
		t.Fatal(err)
	}
	b := v.Workers[1]
	if b.Bottleneck != BottleneckNone || b.Ceiling != 0 || b.Effective != 0 || b.RunnerCapacity != 0 {
		t.Fatalf("worker without runner: %+v", b)
	}
	if v.WorkersWithoutRunner != 1 || v.Effective != 10 || v.WorkerConcurrency != 30 || !near(v.Ceiling, 10, 1e-9) {
		t.Fatalf("cluster totals: %+v", v)
	}
}

func TestTwoStageCeiling(t *testing.T) {
	// 5 worker slots held 1.11 s each vs 20 runner slots held 1.0 s: the
	// worker binds at 4.50/s, as measured in the lab.
	cl := oneWorker(5, 20)
	cl.Service = ServiceTime{Job: 1110 * time.Millisecond, Task: time.Second}
	v, _ := Evaluate(cl)
	if !near(v.Ceiling, 5/1.11, 1e-9) || v.Workers[0].Bottleneck != BottleneckWorker {
		t.Fatalf("got %.4f %s", v.Ceiling, v.Workers[0].Bottleneck)
	}
	// Equal slots but a job that outlives its task: still worker-bound.
	cl = oneWorker(10, 10)
	cl.Service = ServiceTime{Job: 2 * time.Second, Task: time.Second}
	v, _ = Evaluate(cl)
	if v.Workers[0].Bottleneck != BottleneckWorker || !near(v.Ceiling, 5, 1e-9) {
		t.Fatalf("got %.4f %s", v.Ceiling, v.Workers[0].Bottleneck)
	}
	// Fewer runner slots but a short task: the worker binds.
	cl = oneWorker(10, 8)
	cl.Service = ServiceTime{Job: 3 * time.Second, Task: time.Second}
	v, _ = Evaluate(cl)
	if v.Workers[0].Bottleneck != BottleneckWorker || !near(v.Ceiling, 10.0/3, 1e-9) {
		t.Fatalf("got %.4f %s", v.Ceiling, v.Workers[0].Bottleneck)
	}
}

func TestInvalidInput(t *testing.T) {
	cases := map[string]struct {
		c    Cluster
		want string
	}{
		"no workers":       {Cluster{}, "no workers"},
		"zero concurrency": {oneWorker(0, 10), "concurrency must be positive"},
		"negative conc":    {oneWorker(-3, 10), "got -3"},
		"zero limit":       {oneWorker(5, 0), "limit must be positive"},
		"negative limit":   {oneWorker(5, -1), "got -1"},
		"negative time":    {Cluster{Workers: oneWorker(5, 1).Workers, Service: Single(-time.Second)}, "must not be negative"},
		"one stage only":   {Cluster{Workers: oneWorker(5, 1).Workers, Service: ServiceTime{Job: time.Second}}, "both stages"},
	}
	for name, c := range cases {
		_, err := Evaluate(c.c)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrInvalid mentioning %q", name, err, c.want)
		}
	}
}
