package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// throughputRow sets measured completions against the ceiling, with the
// loadctl steps that produced them.
func throughputRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Throughput vs ceiling"))
	b.WithPanel(graph("Executions per second vs ceiling",
		"Completed executions per second (the exporter's count from Bull, exact each second; n8n main's queue counter, refreshed every 20 s), runner tasks done (probe) and loadctl's passing requests, against the cluster's ceiling, the lowest over every resource. "+
			"Bad when measured flattens at the ceiling while load rises: more load only adds latency, so add to the resource that binds (What binds).",
		"reqps", 16,
		q(`sum(rate(`+metricname.ClusterExecutions+`[$__rate_interval]))`, "completed (exporter)"),
		q(`sum(rate(`+metricname.N8nQueueJobsCompleted+`[$__rate_interval]))`, "completed (n8n queue)"),
		q(`sum(rate(`+metricname.RunnerTasks+`{outcome="done",`+byProbe+`}[$__rate_interval]))`, "runner tasks done (probe)"),
		q(`sum(rate(`+metricname.LoadctlRequests+`{outcome="pass"}[$__rate_interval]))`, "loadctl passing"),
		q(`max(`+metricname.ClusterCeiling+`)`, "ceiling")).
		OverrideByName("ceiling", []dashboard.DynamicConfigValue{
			{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
			{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "red"}},
		}))
	b.WithPanel(graph("loadctl steps",
		"The load loadctl applies: VUs (closed loop) or target rate (open loop) per step, and requests in flight. "+
			"Bad when in flight stays far above the effective concurrency: requests queue and latency grows without throughput.",
		"none", 8,
		q(`max(`+metricname.LoadctlStepVUs+`)`, "VUs"),
		q(`max(`+metricname.LoadctlStepTargetRate+`)`, "target rate/s"),
		q(`sum(`+metricname.LoadctlInFlight+`)`, "in flight")).
		LineInterpolation(common.LineInterpolationStepAfter))
}
