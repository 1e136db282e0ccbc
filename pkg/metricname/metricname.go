// Package metricname holds the name of every metric this project's
// binaries emit, and of the n8n metrics they read. The collectors, the
// exporter reader (pkg/snapshot), the dashboard generator and the rule
// tests all take their names from here, so a renamed metric breaks the
// build instead of a run. It imports nothing.
package metricname

// The exporter's capacity verdict, memory, queue and source health
// (pkg/collector).
const (
	WorkerConcurrency           = "n8n_worker_concurrency"
	RunnerMaxConcurrency        = "n8n_runner_max_concurrency"
	WorkerRunnerCapacity        = "n8n_worker_runner_capacity"
	WorkerEffectiveConcurrency  = "n8n_worker_effective_concurrency"
	WorkerBottleneck            = "n8n_worker_bottleneck"
	WorkerCeiling               = "n8n_worker_ceiling_executions_per_second"
	WorkerTaskRequestTimeout    = "n8n_worker_task_request_timeout_seconds"
	WorkerTaskRequestWait       = "n8n_worker_task_request_wait_seconds"
	WorkerTaskAcceptTimeout     = "n8n_worker_task_accept_timeout_seconds"
	WorkerShutdownTimeout       = "n8n_worker_graceful_shutdown_timeout_seconds"
	RunnerShutdownTimeout       = "n8n_runner_graceful_shutdown_timeout_seconds"
	WorkerRunnerState           = "n8n_worker_runner_state"
	ClusterEffectiveConcurrency = "n8n_cluster_effective_concurrency"
	ClusterCeiling              = "n8n_cluster_ceiling_executions_per_second"
	ClusterWorkersWithoutRunner = "n8n_cluster_workers_without_runner"
	ServiceTime                 = "n8n_service_time_seconds"
	ServiceTimeUsed             = "n8n_exporter_service_time_used"
	ContainerWorkingSet         = "n8n_container_memory_working_set_bytes"
	ContainerRSS                = "n8n_container_memory_rss_bytes"
	ContainerMemoryLimit        = "n8n_container_memory_limit_bytes"
	ContainerOOMKilled          = "n8n_container_oom_killed"
	ContainerOOMKills           = "n8n_container_oom_kills_total"
	ContainerRestarts           = "n8n_container_restarts"
	QueueJobs                   = "n8n_queue_jobs"
	QueuePoolJobs               = "n8n_queue_pool_jobs"
	SourceUp                    = "n8n_exporter_source_up"
	SourceDuration              = "n8n_exporter_source_duration_seconds"
	InspectErrors               = "n8n_exporter_inspect_errors_total"
	ContainerInfo               = "n8n_container_info"
	RunnerPairing               = "n8n_runner_pairing"
	// Per task type: the runners image keeps a pool per type.
	RunnerTaskTypeMaxConcurrency = "n8n_runner_task_type_max_concurrency"
	WorkerTaskTypeRunnerCapacity = "n8n_worker_task_type_runner_capacity"
	WorkerTaskTypeEffective      = "n8n_worker_task_type_effective_concurrency"
	ClusterTaskTypeCeiling       = "n8n_cluster_task_type_ceiling_executions_per_second"
	ClusterRunnerCapacity        = "n8n_cluster_runner_capacity"
	ClusterEffectiveRange        = "n8n_cluster_effective_concurrency_range"
	ClusterCeilingRange          = "n8n_cluster_ceiling_range_executions_per_second"
)

// The bound analysis over every resource, slots and CPU alike
// (pkg/collector). The resource label is bounded: slots:worker:<worker>,
// slots:runner:<worker>, cpu:host and cpu:<container>.
const (
	ResourceDemand  = "n8n_resource_demand_seconds"
	ResourceServers = "n8n_resource_servers"
	// ResourceBackground is the cores of cpu:host busy with work that is
	// not n8n's.
	ResourceBackground = "n8n_resource_background_servers"
	// ResourceAlone is a process thread's cores with the host's cores to
	// itself.
	ResourceAlone     = "n8n_resource_alone_servers"
	ResourceCeiling   = "n8n_resource_ceiling_executions_per_second"
	ClusterBottleneck = "n8n_cluster_bottleneck"
	ClusterExecutions = "n8n_cluster_executions_total"
	ExecutionsSource  = "n8n_exporter_executions_source"
)

// BuildInfo is the exporter binary's own build metric (cmd/exporter),
// beside the collector's.
const BuildInfo = "n8n_exporter_build_info"

// The broker probe's metrics (pkg/brokerprobe), served on the exporter's
// /metrics or a probe sidecar's.
const (
	RunnerTasksRunning            = "n8n_runner_tasks_running"
	RunnerOffersOpen              = "n8n_runner_offers_open"
	RunnerInferredMaxConcurrency  = "n8n_runner_inferred_max_concurrency"
	RunnerConnections             = "n8n_runner_connections"
	RunnerUnresponsiveConnections = "n8n_runner_unresponsive_connections"
	RunnerTasks                   = "n8n_runner_tasks_total"
	RunnerTaskRejections          = "n8n_runner_task_rejections_total"
	RunnerTaskDuration            = "n8n_runner_task_duration_seconds"
	RunnerTaskHandoff             = "n8n_runner_task_handoff_seconds"
	RunnerFrames                  = "n8n_runner_frames_total"
	RunnerFrameParseErrors        = "n8n_runner_frame_parse_errors_total"
	RunnerUnresponsiveCloses      = "n8n_runner_unresponsive_closes_total"
	RunnerDrains                  = "n8n_runner_drains_total"
	RunnerUpstreamConnections     = "n8n_runner_upstream_connections"
)

// loadctl's live metrics during a sweep (pkg/loadgen/prom). They use the
// loadctl_ namespace: they describe the load tool, not n8n.
const (
	LoadctlStep            = "loadctl_step"
	LoadctlStepVUs         = "loadctl_step_vus"
	LoadctlStepTargetRate  = "loadctl_step_target_rate_per_second"
	LoadctlInFlight        = "loadctl_in_flight_requests"
	LoadctlRequests        = "loadctl_requests_total"
	LoadctlRequestDuration = "loadctl_request_duration_seconds"
	LoadctlStepsStarted    = "loadctl_steps_started_total"
)

// n8n's own metrics that this project reads and never emits: main's queue
// counter (with N8N_METRICS_INCLUDE_QUEUE_METRICS=true) and the execution
// histogram the exporter falls back on for the job-stage time.
const (
	N8nQueueJobsCompleted = "n8n_scaling_mode_queue_jobs_completed"
	N8nExecutionDuration  = "n8n_workflow_execution_duration_seconds"
	N8nVersionInfo        = "n8n_version_info" // label version, e.g. "v2.41.1"
)

// Exporter lists the names the exporter's collector emits.
func Exporter() []string {
	return []string{WorkerConcurrency, RunnerMaxConcurrency, WorkerRunnerCapacity, WorkerEffectiveConcurrency,
		WorkerBottleneck, WorkerCeiling, WorkerTaskRequestTimeout, WorkerTaskRequestWait, WorkerTaskAcceptTimeout, WorkerShutdownTimeout, RunnerShutdownTimeout, WorkerRunnerState, ClusterEffectiveConcurrency, ClusterCeiling, ClusterWorkersWithoutRunner,
		ServiceTime, ServiceTimeUsed, ContainerWorkingSet, ContainerRSS, ContainerMemoryLimit, ContainerOOMKilled,
		ContainerOOMKills, ContainerRestarts, QueueJobs, QueuePoolJobs, SourceUp, SourceDuration, InspectErrors, ContainerInfo,
		RunnerPairing, RunnerTaskTypeMaxConcurrency, WorkerTaskTypeRunnerCapacity, WorkerTaskTypeEffective, ClusterTaskTypeCeiling, ClusterRunnerCapacity, ClusterEffectiveRange, ClusterCeilingRange,
		ResourceDemand, ResourceServers, ResourceBackground, ResourceAlone, ResourceCeiling, ClusterBottleneck, ClusterExecutions, ExecutionsSource}
}

// Probe lists the names a broker probe emits.
func Probe() []string {
	return []string{RunnerTasksRunning, RunnerOffersOpen, RunnerInferredMaxConcurrency, RunnerConnections,
		RunnerUnresponsiveConnections, RunnerTasks, RunnerTaskRejections, RunnerTaskDuration, RunnerTaskHandoff, RunnerFrames,
		RunnerFrameParseErrors, RunnerUnresponsiveCloses, RunnerDrains, RunnerUpstreamConnections}
}

// Loadctl lists the names loadctl serves during a sweep.
func Loadctl() []string {
	return []string{LoadctlStep, LoadctlStepVUs, LoadctlStepTargetRate, LoadctlInFlight, LoadctlRequests,
		LoadctlRequestDuration, LoadctlStepsStarted}
}

// FromN8n lists n8n's own names this project reads.
func FromN8n() []string {
	return []string{N8nQueueJobsCompleted, N8nExecutionDuration, N8nVersionInfo}
}
