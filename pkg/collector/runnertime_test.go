package collector

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// The regular-mode runner time from n8n's histogram: 10 executions in
// flight behind runners of limit 5, 5 completing a second, each 2 s long
// (1 s waiting for a slot, 1 s in it). The busy slots are 5, so the task
// takes 1 s; with limit 20 every execution holds a slot and the figure is
// the execution mean, 2 s.
func TestHistRunsRunnerTime(t *testing.T) {
	var h histRuns
	if _, _, _, ok := h.runnerTime(5); ok {
		t.Fatal("a runner time from no reads")
	}
	if _, _, ok := h.runnerWait(5); ok {
		t.Fatal("a runner wait from no reads")
	}
	for i := range 8 {
		h.record(histPoint{at: t0.Add(time.Duration(i) * 5 * time.Second), sum: float64(i) * 50, count: uint64(i) * 25})
	}
	tt, busy, span, ok := h.runnerTime(5)
	if !ok || tt != time.Second || busy != 5 || span != 30*time.Second {
		t.Fatalf("limit 5: %v busy %v over %v ok %v, want 1 s, 5 busy, over the 30 s window", tt, busy, span, ok)
	}
	if tt, _, _, _ := h.runnerTime(20); tt != 2*time.Second {
		t.Fatalf("limit 20: %v, want the 2 s execution mean", tt)
	}
	// The other half of each execution waited for a slot: 1 s; none at 20.
	if w, span, ok := h.runnerWait(5); !ok || w != time.Second || span != 30*time.Second {
		t.Fatalf("limit 5: wait %v over %v ok %v, want 1 s over the 30 s window", w, span, ok)
	}
	if w, _, ok := h.runnerWait(20); !ok || w != 0 {
		t.Fatalf("limit 20: wait %v ok %v, want 0", w, ok)
	}
	// Idle reads keep the held window; n8n restarting (its count goes
	// back) starts a new one, and the old window stays held until the
	// new one counts minRunnerJobs.
	for i := 8; i < 16; i++ {
		h.record(histPoint{at: t0.Add(time.Duration(i) * 5 * time.Second), sum: 350, count: 175})
	}
	h.record(histPoint{at: t0.Add(80 * time.Second), sum: 1, count: 1})
	if tt, _, _, ok := h.runnerTime(5); !ok || tt != time.Second {
		t.Fatalf("held through idle and a restart: %v ok %v", tt, ok)
	}
	h.record(histPoint{at: t0.Add(85 * time.Second), sum: 31, count: 16})
	if tt, _, _, _ := h.runnerTime(5); math.Abs(tt.Seconds()-25.0/15) > 1e-6 {
		t.Fatalf("after the restart: %v, want 25 slot-seconds (5 slots × 5 s of the 30 s executed) / 15 executions", tt)
	}
}

// A longer window (EXPORTER_SAMPLE_WINDOW) counts more of a saturated
// runner's bursts: the same reads over 60 s span 60 s, not 30.
func TestHistRunsWindowSpan(t *testing.T) {
	h := histRuns{span: time.Minute}
	for i := range 14 {
		h.record(histPoint{at: t0.Add(time.Duration(i) * 5 * time.Second), sum: float64(i) * 50, count: uint64(i) * 25})
	}
	if tt, _, span, ok := h.runnerTime(5); !ok || tt != time.Second || span != time.Minute {
		t.Fatalf("60 s window: %v over %v ok %v, want 1 s over 60 s", tt, span, ok)
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func node(name string, limits ...int) topology.WorkerNode {
	w := topology.WorkerNode{Worker: topology.Process{Name: name}}
	for _, l := range limits {
		w.Runners = append(w.Runners, topology.Attachment{Runner: topology.Process{Name: name + "-runner",
			Settings: topology.Settings{RunnerLimit: topology.Setting[int]{Value: l}}}})
	}
	return w
}

func TestRunnerCapacity(t *testing.T) {
	unknown := node("w3")
	unknown.Runners = []topology.Attachment{{Runner: topology.Process{Name: "r", Settings: topology.Settings{RunnerLimit: topology.Setting[int]{Unknown: "unreadable"}}}}}
	for _, c := range []struct {
		name    string
		workers []topology.WorkerNode
		want    int
		why     string
	}{
		{"one worker, two runners", []topology.WorkerNode{node("w1", 3, 2)}, 5, ""},
		{"same capacity", []topology.WorkerNode{node("w1", 4), node("w2", 2, 2)}, 4, ""},
		{"capacities differ", []topology.WorkerNode{node("w1", 4), node("w2", 5)}, 0, "differ"},
		{"worker without runner", []topology.WorkerNode{node("w1", 4), node("w2")}, 0, "no runner"},
		{"limit unknown", []topology.WorkerNode{unknown}, 0, "unknown"},
	} {
		got, why := runnerCapacity(topology.Topology{Workers: c.workers})
		if got != c.want || !strings.Contains(why, c.why) || (c.why == "") != (why == "") {
			t.Errorf("%s: %d %q, want %d %q", c.name, got, why, c.want, c.why)
		}
	}
	// A spread runner may serve either worker: no worker's capacity is
	// known, so none is said to have no runner.
	spread := topology.Topology{Workers: []topology.WorkerNode{node("w1", 4), node("w2")}, Spread: []topology.Spread{{}}}
	if got, why := runnerCapacity(spread); got != 0 || !strings.Contains(why, "ambiguous") {
		t.Errorf("spread: %d %q", got, why)
	}
}
