package brokerprobe

import (
	"bytes"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
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

// metricsText is every metric c exposes, in the text format a scrape gets.
func metricsText(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	mfs, err := newPedanticRegistry(t, c).Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
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
	// Without a connection there is no upstream peer, so no series of
	// n8n_runner_upstream_connections; every other family has both probes.
	if want := len(metricname.Probe()) - 1; len(mfs) != want {
		t.Errorf("got %d metric families, want the %d of metricname.Probe less %s", len(mfs), want, metricname.RunnerUpstreamConnections)
	}
}
