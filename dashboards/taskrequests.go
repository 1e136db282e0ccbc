package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// taskRequestsRow sets the wait of a Code task's request for a runner
// slot against the timeout at which n8n fails it.
func taskRequestsRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Task requests"))
	b.WithPanel(graph("Task-request wait vs timeout",
		"How long a Code task's request waits inside its worker for a runner slot (the exporter's figure from the jobs held past the runner capacity), "+
			"against N8N_RUNNERS_TASK_REQUEST_TIMEOUT, where n8n fails the execution with \"Task request timed out\", and the alert's 80 % line. "+
			"Bad when the wait nears the timeout: raise the runner limit or add a worker-runner pair. The failures are predicted here, not counted.",
		"s", 24,
		q(metricname.WorkerTaskRequestWait+`{`+byWorker+`}`, "wait: {{worker}}"),
		q(metricname.WorkerTaskRequestTimeout+`{`+byWorker+`}`, "timeout: {{worker}}"),
		q(`0.8 * `+metricname.WorkerTaskRequestTimeout+`{`+byWorker+`}`, "alert at: {{worker}}")))
}
