package capacity

import (
	"testing"
	"time"
)

func byName(rs []Resource) map[string]Resource {
	out := make(map[string]Resource, len(rs))
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

// One worker: the slot ceilings are W/job and R/task, unchanged.
func TestSlotResourcesOneWorker(t *testing.T) {
	cl := oneWorker(15, 10)
	cl.Service = ServiceTime{Job: 1100 * time.Millisecond, Task: time.Second}
	rs := byName(SlotResources(evaluated(t, cl)))
	w, r := rs["slots:worker:w1"], rs["slots:runner:w1"]
	if w.Servers != 15 || !near(w.Demand, 1.1, 1e-12) || r.Servers != 10 || !near(r.Demand, 1, 1e-12) {
		t.Fatalf("got %+v and %+v", w, r)
	}
	if !near(w.Ceiling(), 15/1.1, 1e-9) || !near(r.Ceiling(), 10, 1e-9) || len(rs) != 2 {
		t.Fatalf("ceilings %v %v", w.Ceiling(), r.Ceiling())
	}
}

// Several workers: each worker's slots carry its share of the executions,
// so the smallest slot ceiling is the cluster's, the sum of per-worker
// ceilings, and the binding side of every worker reaches it.
func TestSlotResourcesClusterShares(t *testing.T) {
	cl := Cluster{
		Workers: []Worker{
			{Name: "a", Concurrency: 15, Runners: []Runner{{Limit: 10}}}, // runner-bound: 10/s
			{Name: "b", Concurrency: 5, Runners: []Runner{{Limit: 20}}},  // worker-bound: 5/s
			{Name: "c", Concurrency: 8},                                  // no runner
		},
		Service: Single(time.Second),
	}
	v := evaluated(t, cl)
	rs := SlotResources(v)
	if len(rs) != 4 {
		t.Fatalf("got %d resources, want 4 (worker c has no runner)", len(rs))
	}
	m := byName(rs)
	if !near(m["slots:runner:a"].Demand, 1.0*10/15, 1e-12) || !near(m["slots:worker:b"].Demand, 1.0*5/15, 1e-12) {
		t.Fatalf("shares: %+v", m)
	}
	b, err := Combine(rs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !near(b.Ceiling, v.Ceiling, 1e-9) || !near(b.Ceiling, 15, 1e-9) {
		t.Fatalf("bound %v, verdict %v, want 15", b.Ceiling, v.Ceiling)
	}
	if len(b.Binding) != 2 || b.Binding[0] != "slots:runner:a" || b.Binding[1] != "slots:worker:b" {
		t.Fatalf("binding %v, want the runner slots of a, then the worker slots of b", b.Binding)
	}
}

func TestSlotResourcesWithoutServiceTime(t *testing.T) {
	w := Worker{Concurrency: 5, Runners: []Runner{{Limit: 5}}}
	rs := SlotResources(evaluated(t, Cluster{Workers: []Worker{w}}))
	if len(rs) != 2 || rs[0].Name != "slots:worker:#1" || rs[0].Known() || rs[1].Unknown != UnknownServiceTime {
		t.Fatalf("got %+v", rs)
	}
	b, err := Combine(rs, nil)
	if err != nil || b.HasCeiling() || b.Bottleneck() != "" || len(b.Unknown()) != 2 {
		t.Fatalf("bounds %+v, err %v", b, err)
	}
}
