package topology

// InternalSuffix ends the name of the runner a main or worker launches
// itself: "<process>/internal".
const InternalSuffix = "/internal"

// Internal reports whether the runner is its host's own child process.
func (a Attachment) Internal() bool { return a.Via == ViaInternal }

// newNode is p with its internal runner, when it launches one.
func newNode(p Process) WorkerNode {
	n := WorkerNode{Worker: p}
	if p.Settings.LaunchesRunner() {
		n.Runners = append(n.Runners, internalRunner(p))
	}
	return n
}

// internalRunner is the runner p launches as its own child process: a
// Node process in p's container, with p's N8N_RUNNERS_MAX_CONCURRENCY and
// N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT. No probe can stand between them.
func internalRunner(p Process) Attachment {
	r := Process{ID: p.ID + InternalSuffix, Name: p.Name + InternalSuffix, Instance: p.Instance, Role: RoleRunner,
		Settings: Settings{RunnerLimit: p.Settings.RunnerLimit, ShutdownTimeout: p.Settings.RunnerShutdownTimeout}, Net: p.Net, State: p.State}
	return Attachment{Runner: r, Via: ViaInternal, Target: p.InstanceName()}
}
