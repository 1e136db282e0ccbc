package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/bargauge"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// binding selects the resource n8n_cluster_bottleneck marks.
const binding = `on (resource) (` + metricname.ClusterBottleneck + ` == 1)`

// whatBinds lists every resource's ceiling as a bar, the binding one red:
// the bound analysis at a glance.
func whatBinds() *bargauge.PanelBuilder {
	return bargauge.NewPanelBuilder().
		Title("What binds").
		Description("Every resource's ceiling, servers ÷ demand per execution: each worker's and runner's slots, each n8n process's CPU and the host's cores; the lowest, drawn red, is the cluster's ceiling. "+
			"Bad when a CPU resource binds while you add slots, or when the red bar is near your measured throughput: more of anything but that resource adds nothing.").
		Datasource(ds).
		Targets(targets([]query{
			q(metricname.ResourceCeiling+` unless `+binding, "{{resource}}"),
			q(metricname.ResourceCeiling+` and `+binding, "binds: {{resource}}"),
		})).
		Unit("suffix: /s").
		Decimals(1).
		Min(0).
		Height(8).
		Span(12).
		Orientation(common.VizOrientationHorizontal).
		DisplayMode(common.BarGaugeDisplayModeBasic).
		ValueMode(common.BarGaugeValueModeText).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}).Values(false)).
		ColorScheme(dashboard.NewFieldColorBuilder().Mode(dashboard.FieldColorModeIdFixed).FixedColor("blue")).
		OverrideByQuery("B", []dashboard.DynamicConfigValue{
			{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "red"}},
		})
}

// cpuPerExecution plots the CPU demands the ceiling is computed with.
func cpuPerExecution() *timeseries.PanelBuilder {
	return graph("CPU per execution by process",
		"CPU seconds each n8n container (cpu:<container>) and the whole host (cpu:host, PostgreSQL and Redis included) spend per completed execution, over the exporter's demand window; absent until the window holds enough executions. "+
			"Bad when it grows with load (contention) or when one process's figure nears 0.94 s ÷ the throughput you need: that process's core binds.",
		"s", 12,
		q(metricname.ResourceDemand+`{resource=~"cpu:.*"}`, "{{resource}}"))
}
