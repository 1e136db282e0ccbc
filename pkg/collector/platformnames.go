package collector

// Metric names the Kubernetes platform brought: the info series that joins
// the kubelet's cAdvisor metrics with n8n roles, and the broker probe's
// metrics the collector reads from probe sidecars.
const (
	containerInfoName = "n8n_container_info"

	probeRunningName     = "n8n_runner_tasks_running"
	probeLimitName       = "n8n_runner_inferred_max_concurrency"
	probeConnectionsName = "n8n_runner_connections"
	probeTasksName       = "n8n_runner_tasks_total"
	probeDurationName    = "n8n_runner_task_duration_seconds"
)
