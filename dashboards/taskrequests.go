package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// taskRequestsRow sets the wait of a Code task's request for a runner
// slot against the timeout at which n8n fails it, and its cause.
func taskRequestsRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Task requests"))
	b.WithPanel(runnerStateStat())
	b.WithPanel(graph("Task-request wait vs timeout",
		"How long a Code task's request waits inside its worker for a runner slot (the exporter's figure from the jobs held past the runner capacity), "+
			"against N8N_RUNNERS_TASK_REQUEST_TIMEOUT, where n8n fails the execution with \"Task request timed out\", and the alert's 80 % line. "+
			"Bad when the wait nears the timeout: raise the runner limit or add a worker-runner pair. The failures are predicted here, not counted.",
		"s", 18,
		q(metricname.WorkerTaskRequestWait+`{`+byWorker+`}`, "wait: {{worker}}"),
		q(metricname.WorkerTaskRequestTimeout+`{`+byWorker+`}`, "timeout: {{worker}}"),
		q(`0.8 * `+metricname.WorkerTaskRequestTimeout+`{`+byWorker+`}`, "alert at: {{worker}}")))
}

// runnerStateStat states each worker's runner state in words: the query
// encodes it as 0 = ok, 1 = at capacity, 2 = no runner, 3 = unresponsive.
func runnerStateStat() *statBuilder {
	state := func(s string) string {
		return `sum by (worker) (` + metricname.WorkerRunnerState + `{state="` + s + `",` + byWorker + `})`
	}
	return statPanel("Runner state",
		"Why task requests wait, per worker: at capacity (every runner slot busy and requests wait), no runner (none serves its broker), "+
			"unresponsive (a runner holds tasks and has sent nothing past its offer validity plus the task time; seen through a broker probe). "+
			"Bad when it is not ok: the alert N8nTaskRequestsWillTimeOut names the fix.",
		"none", 6,
		q(state("at_capacity")+` + 2 * `+state("no_runner")+` + 3 * `+state("unresponsive"), "{{worker}}")).
		Height(8).
		Mappings(textMap(map[string]dashboard.ValueMappingResult{
			"0": word("ok", "green", 0),
			"1": word("at capacity", "orange", 1),
			"2": word("no runner", "red", 2),
			"3": word("unresponsive", "red", 3),
		}))
}
