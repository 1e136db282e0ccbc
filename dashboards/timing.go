package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// quantile is histogram_quantile over a rate of buckets summed by le.
// An empty selector selects every series.
func quantile(phi, buckets, sel string) string {
	if sel != "" {
		buckets += "{" + sel + "}"
	}
	return `histogram_quantile(` + phi + `, sum by (le) (rate(` + buckets + `[$__rate_interval])))`
}

// timeRow shows how long a slot is held, which turns slots into a ceiling.
func timeRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Time"))
	b.WithPanel(graph("Runner task duration",
		"p50 and p95 of the time a task holds a runner slot, accept to done, from the broker probe's histogram. "+
			"Bad when it grows with load: the tasks contend for CPU or memory rather than for slots.",
		"s", 10,
		q(quantile("0.5", metricname.RunnerTaskDuration+"_bucket", byProbe), "p50"),
		q(quantile("0.95", metricname.RunnerTaskDuration+"_bucket", byProbe), "p95"),
		q(`sum(rate(`+metricname.RunnerTaskDuration+`_sum{`+byProbe+`}[$__rate_interval])) / sum(rate(`+metricname.RunnerTaskDuration+`_count{`+byProbe+`}[$__rate_interval]))`, "mean")))
	b.WithPanel(graph("Service time in use",
		"The time per execution the ceiling is computed with, per stage (job = worker slot, task = runner slot), and every measured candidate. "+
			"Bad when the one in use differs much from the task duration beside it: the ceiling is then off by the same ratio.",
		"s", 7,
		q(metricname.ServiceTime+` and on (stage, source) (`+metricname.ServiceTimeUsed+` == 1)`, "in use: {{stage}} ({{source}})"),
		q(metricname.ServiceTime, "measured: {{stage}} ({{source}})")))
	b.WithPanel(graph("Request latency (loadctl)",
		"End-to-end latency of loadctl's completed requests, p50 and p95; read it only after pass and error rates, since fast failures look fast. "+
			"Bad when it is far above the task duration: requests wait for a slot.",
		"s", 7,
		q(quantile("0.5", metricname.LoadctlRequestDuration+"_bucket", ""), "p50"),
		q(quantile("0.95", metricname.LoadctlRequestDuration+"_bucket", ""), "p95")))
}
