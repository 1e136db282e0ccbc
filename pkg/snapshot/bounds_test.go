package snapshot

import (
	"math"
	"strings"
	"testing"
)

func TestResourcesAndBounds(t *testing.T) {
	s := parseFile(t, "testdata/resources.prom")
	if len(s.Resources) != 5 {
		t.Fatalf("resources %+v, want 5", s.Resources)
	}
	runner := s.Resources[4]
	if runner.Name != "cpu:n8n-lab-runner-1-1" || !runner.Servers.OK || runner.Demand.OK || runner.Binding {
		t.Fatalf("runner CPU without a demand: %+v", runner)
	}
	if !s.Resources[2].Binding || s.Resources[0].Binding {
		t.Fatalf("binding flags: %+v", s.Resources)
	}
	if host, ok := s.Resource("cpu:host"); !ok || host.Background != (Sample{Value: 0.25, OK: true}) || runner.Background.OK {
		t.Fatalf("background: cpu:host %+v (found %v), runner %+v", host, ok, runner.Background)
	}
	if _, ok := s.Resource("cpu:absent"); ok {
		t.Fatal("Resource found a resource no series names")
	}
	if !s.Cluster.Executions.OK || s.Cluster.Executions.Value != 1234 {
		t.Fatalf("cluster: %+v", s.Cluster)
	}
	b, err := s.Bounds()
	if err != nil {
		t.Fatal(err)
	}
	if b.Bottleneck() != "cpu:host" || math.Abs(b.Ceiling-2/0.034) > 1e-9 || math.Abs(b.SlotCeiling-187.5) > 1e-9 {
		t.Fatalf("bounds: bottleneck %s ceiling %v slots %v", b.Bottleneck(), b.Ceiling, b.SlotCeiling)
	}
	if u := b.Unknown(); len(u) != 1 || u[0] != "cpu:n8n-lab-runner-1-1" {
		t.Fatalf("unknown %v", u)
	}
	// main's thread: 0.75 of a core under load, 0.94 alone as its station.
	if main := b.Resources[3]; main.Servers != 0.75 || main.Alone != 0.94 || s.Resources[1].Alone.OK {
		t.Fatalf("main's thread %+v; slots alone %+v", main, s.Resources[1].Alone)
	}
	if st := b.Stations(); st[3].Name != "cpu:n8n-lab-main" || st[3].Servers != 0.94 {
		t.Fatalf("stations %+v", st)
	}
}

func TestBoundsRejects(t *testing.T) {
	if _, err := parseFile(t, "testdata/exporter.prom").Bounds(); err == nil || !strings.Contains(err.Error(), "no resource series") {
		t.Fatalf("an exporter without resources: %v", err)
	}
	s, err := Parse(strings.NewReader("n8n_resource_servers{resource=\"disk:a\"} 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Bounds(); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("unknown kind: %v", err)
	}
}
