package brokerprobe

import (
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func newPedanticRegistry(t *testing.T, cs ...prometheus.Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			t.Fatalf("register: %v", err)
		}
	}
	return reg
}

// Two probes in one exporter must register side by side.
func TestTwoProbesRegisterOnOneRegistry(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var ps []prometheus.Collector
	for _, name := range []string{"runner-1", "runner-2"} {
		p, err := New(Config{Name: name, Listen: "127.0.0.1:0", Upstream: "http://127.0.0.1:5689"}, logger)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	reg := newPedanticRegistry(t, ps...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		probes := map[string]bool{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "probe" {
					probes[l.GetValue()] = true
				}
			}
		}
		if len(probes) != 2 {
			t.Errorf("%s has probes %v, want both", mf.GetName(), probes)
		}
	}
	if len(mfs) != 9 {
		t.Errorf("got %d metric families, want 9", len(mfs))
	}
}
