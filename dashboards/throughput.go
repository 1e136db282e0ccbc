package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// throughputRow sets measured completions against the ceiling, with the
// loadctl steps that produced them.
func throughputRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Throughput vs ceiling"))
	b.WithPanel(graph("Executions per second vs ceiling",
		"Completed executions per second (n8n main's queue counter, refreshed every 20 s), runner tasks done (probe) and loadctl's passing requests, against the ceiling line. "+
			"Bad when measured flattens at the ceiling while load rises: more load only adds latency, so raise both limits together.",
		"reqps", 16,
		q(`sum(rate(n8n_scaling_mode_queue_jobs_completed[$__rate_interval]))`, "completed (n8n queue)"),
		q(`sum(rate(n8n_runner_tasks_total{outcome="done",`+byProbe+`}[$__rate_interval]))`, "runner tasks done (probe)"),
		q(`sum(rate(loadctl_requests_total{outcome="pass"}[$__rate_interval]))`, "loadctl passing"),
		q(`sum(n8n_worker_ceiling_executions_per_second{`+byWorker+`})`, "ceiling")).
		OverrideByName("ceiling", []dashboard.DynamicConfigValue{
			{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
			{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "red"}},
		}))
	b.WithPanel(graph("loadctl steps",
		"The load loadctl applies: VUs (closed loop) or target rate (open loop) per step, and requests in flight. "+
			"Bad when in flight stays far above the effective concurrency: requests queue and latency grows without throughput.",
		"none", 8,
		q(`max(loadctl_step_vus)`, "VUs"),
		q(`max(loadctl_step_target_rate_per_second)`, "target rate/s"),
		q(`sum(loadctl_in_flight_requests)`, "in flight")).
		LineInterpolation(common.LineInterpolationStepAfter))
}
