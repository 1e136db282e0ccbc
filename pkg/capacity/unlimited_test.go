package capacity

import (
	"testing"
	"time"
)

// A regular-mode main without N8N_CONCURRENCY_PRODUCTION_LIMIT has no slot
// limit: its internal runner's 10 slots bound it, whatever the job time,
// and it has runner slots but no worker-slot resource.
func TestUnlimitedWorker(t *testing.T) {
	cl := Cluster{Workers: []Worker{{Name: "main", Concurrency: 99, Unlimited: true, Runners: []Runner{{Name: "main/internal", Limit: 10}}}},
		Service: ServiceTime{Job: 3 * time.Second, Task: 2 * time.Second}}
	v := evaluated(t, cl)
	w := v.Workers[0]
	if !w.Unlimited || w.Concurrency != 0 || w.Effective != 10 || w.Bottleneck != BottleneckRunner || !near(w.Ceiling, 5, 1e-12) {
		t.Fatalf("verdict %+v", w)
	}
	if v.WorkerConcurrency != 0 || v.Effective != 10 || !near(v.Ceiling, 5, 1e-12) {
		t.Errorf("cluster %+v", v)
	}
	rs := SlotResources(v)
	if len(rs) != 1 || rs[0].Name != "slots:runner:main" || rs[0].Servers != 10 || !near(rs[0].Ceiling(), 5, 1e-12) {
		t.Errorf("slot resources %+v", rs)
	}
	b, err := Combine(rs, nil)
	if err != nil || b.Bottleneck() != "slots:runner:main" {
		t.Errorf("bounds %+v %v", b, err)
	}
}

// Without runners an unlimited worker is a worker without runner; a
// limited worker still needs a positive concurrency.
func TestUnlimitedWorkerWithoutRunner(t *testing.T) {
	v := evaluated(t, Cluster{Workers: []Worker{{Name: "main", Unlimited: true}}})
	if v.Workers[0].Bottleneck != BottleneckNone || v.WorkersWithoutRunner != 1 || len(SlotResources(v)) != 0 {
		t.Errorf("verdict %+v", v)
	}
	if _, err := Evaluate(Cluster{Workers: []Worker{{Name: "w"}}}); err == nil {
		t.Error("a worker with concurrency 0 and a limit was accepted")
	}
}
