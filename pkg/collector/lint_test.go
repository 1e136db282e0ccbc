package collector

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Every collector the exporter registers passes client_golang's linter
// (the checks of promtool check metrics). Each case names families it must
// expose, so an empty gather cannot pass.
func TestCollectorsLint(t *testing.T) {
	pc := brokerprobe.Config{Name: "runner-1", Listen: "127.0.0.1:0", Upstream: "http://127.0.0.1:5689"}
	probe, err := brokerprobe.New(pc, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		cs   []prometheus.Collector
		want []string
	}{
		// With no source there is no topology and nothing to emit; the
		// pedantic registry still checks Describe against Collect.
		{"collector without sources", []prometheus.Collector{New(Config{})}, nil},
		{"collector reading Redis", []prometheus.Collector{New(Config{Queue: queue.NewReader(queuetest.StartMemory(t).Client, "bull")})},
			[]string{"n8n_queue_jobs", "n8n_exporter_source_up", "n8n_exporter_source_duration_seconds"}},
		{"lab report", []prometheus.Collector{reportCollector{labReport(t)}},
			[]string{"n8n_worker_ceiling_executions_per_second", "n8n_container_memory_working_set_bytes",
				"n8n_container_oom_kills_total", "n8n_queue_jobs", "n8n_exporter_source_up", "n8n_service_time_seconds"}},
		{"lab report with CPU bounds", []prometheus.Collector{reportCollector{cpuBoundReport(t)}},
			[]string{"n8n_resource_demand_seconds", "n8n_resource_servers", "n8n_resource_ceiling_executions_per_second",
				"n8n_cluster_bottleneck", "n8n_cluster_executions_total", "n8n_exporter_executions_source"}},
		{"regular mode, internal runner", []prometheus.Collector{reportCollector{shapeReport(t,
			ServiceTime{Stage: "job", Source: "n8n", Time: time.Second}, "inspect-regular-main.json", "inspect-webhook.json")}},
			[]string{"n8n_worker_concurrency", "n8n_runner_max_concurrency", "n8n_worker_ceiling_executions_per_second"}},
		{"broker probe", []prometheus.Collector{probe},
			[]string{"n8n_runner_tasks_running", "n8n_runner_connections", "n8n_runner_tasks_total",
				"n8n_runner_task_duration_seconds", "n8n_runner_frame_parse_errors_total"}},
		{"go and process", []prometheus.Collector{collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}, []string{"go_goroutines"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			for _, col := range c.cs {
				if err := reg.Register(col); err != nil {
					t.Fatal(err)
				}
			}
			assertFamilies(t, reg, c.want)
			problems, err := testutil.GatherAndLint(reg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("lint: %s: %s", p.Metric, p.Text)
			}
		})
	}
}

func assertFamilies(t *testing.T, g prometheus.Gatherer, want []string) {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("%s missing from %v", w, names)
		}
	}
}
