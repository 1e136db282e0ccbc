package autoscale

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func phase() Phase {
	p := Phase{Name: "saturation", Scaler: "s", Bin: 10}
	ready := []int{1, 1, 1, 5, 5, 1}
	for i, r := range []int{1, 1, 5, 5, 5, 1} {
		p.Samples = append(p.Samples, Sample{T: float64(5 * i), Replicas: r, Ready: ready[i], Throughput: 2 * float64(ready[i]), Ceiling: 1.98 * float64(r)})
	}
	return p
}

func TestPhaseFigures(t *testing.T) {
	p := phase()
	if got := p.MaxReplicas(0); got != 5 {
		t.Errorf("MaxReplicas(0) = %d", got)
	}
	if got := p.MaxReplicas(5); got != 1 {
		t.Errorf("MaxReplicas(5) = %d", got)
	}
	if got := p.MaxReplicas(99); got != 0 {
		t.Errorf("MaxReplicas past the end = %d", got)
	}
	if got := p.FirstAbove(1); got != 10 {
		t.Errorf("FirstAbove(1) = %v", got)
	}
	if got := p.FirstAbove(5); got != -1 {
		t.Errorf("FirstAbove(5) = %v", got)
	}
	if got := p.Settled(); !reflect.DeepEqual(got, []int{1, 4}) {
		t.Errorf("Settled() = %v, want [1 4]", got)
	}
	if !p.Add("a", true, "x %d", 1) || p.Add("b", false, "y") || len(p.Checks) != 2 || p.Checks[0].Detail != "x 1" {
		t.Errorf("checks %+v", p.Checks)
	}
}

func TestRecordRoundTripsAndDraws(t *testing.T) {
	q := phase()
	q.Name = "queue"
	q.Add("stays at one pod", false, "desired replicas at most 5")
	r := &Record{N8nVersion: "2.41.1", KEDAVersion: "2.21.0", VUs: 8, PodCeiling: 1.98, Demand: 7.5, Phases: []Phase{q, phase()}}
	path := filepath.Join(t.TempDir(), "keda.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip:\n%+v\n%+v", back, r)
	}
	var b bytes.Buffer
	if err := r.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h2>queue: s</h2>", "<h2>saturation: s</h2>", `class="fail">FAIL`, "desired replicas at most 5",
		"load&#39;s demand 7.50/s", "one pod's ceiling 1.98/s"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(page, "its slot ceiling") {
		t.Error("the throughput chart lacks the slot ceiling")
	}
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d charts, want 2 per phase", n)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}
