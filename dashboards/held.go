package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// heldRow is the column the seed found missing: jobs the workers hold next
// to tasks the runners actually run.
func heldRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Held vs running"))
	b.WithPanel(graph("Held by workers vs running in runners",
		"Jobs the workers hold (Bull active, what queue dashboards call busy slots) next to Code tasks the runners run (broker probe), plus jobs waiting in the queue. "+
			"Bad when held stays above running: jobs sit in a worker waiting for a runner slot, so the runner is the bottleneck.",
		"none", 12,
		q(`sum(`+metricname.QueueJobs+`{state="active"})`, "held by workers"),
		q(`sum(`+metricname.RunnerTasksRunning+`{`+byProbe+`})`, "running in runners"),
		q(`sum(`+metricname.QueueJobs+`{state="waiting"})`, "waiting in queue"),
		q(`sum(`+metricname.WorkerEffectiveConcurrency+`{`+byWorker+`})`, "effective concurrency")))
	b.WithPanel(graph("Open offers",
		"Task offers the runners hold open with the broker: their free slots. "+
			"Bad when zero while jobs are held (the runner is full), or zero with no runner connection (Code tasks will time out).",
		"none", 6,
		q(metricname.RunnerOffersOpen+`{`+byProbe+`}`, "{{probe}}")))
	b.WithPanel(graph("Task outcomes",
		"Runner task outcomes and rejections per second, from the broker probe. "+
			"Bad when error, lost or rejected is above 0: tasks fail or the runner refuses work.",
		"reqps", 6,
		q(`sum by (outcome) (rate(`+metricname.RunnerTasks+`{`+byProbe+`}[$__rate_interval]))`, "{{outcome}}"),
		q(`sum by (reason) (rate(`+metricname.RunnerTaskRejections+`{`+byProbe+`}[$__rate_interval]))`, "rejected: {{reason}}")))
}
