package topology

import "slices"

// Process is one n8n process: a Docker container, or a container in a
// Kubernetes pod. It holds no env value beyond the whitelisted settings.
type Process struct {
	// ID is unique on the platform: Docker's container ID;
	// "<namespace>/<pod>/<container>" in Kubernetes.
	ID string
	// Name labels the process in container metrics: Docker's container
	// name; "<namespace>/<pod>/<container>" in Kubernetes.
	Name string
	// Instance labels the n8n instance in worker metrics when that is not
	// Name: "<namespace>/<pod>" in Kubernetes; empty in Docker.
	Instance string
	Role     Role
	Settings Settings
	Net      Network
	State    State
	// CgroupParent is where the platform put the process's cgroup when not
	// in its default place: Docker's --cgroup-parent; in Kubernetes the
	// pod's cgroup in the kubelet's cgroupfs layout, "kubepods/<QoS
	// class>/pod<UID>" (no class for Guaranteed).
	CgroupParent string
	// RuntimeID is the container runtime's ID where ID is not it
	// (Kubernetes: the container status's containerID less its scheme).
	// The container's cgroup is named for it.
	RuntimeID string
	// Peers are the remote ends of the process's established TCP
	// connections, as the platform observed them in its network
	// namespace's socket table; nil when nothing was observed. Pairing
	// takes a broker's IP and port among them as the broker it dialled.
	Peers []Endpoint
	// Problems lists settings that were malformed or unreadable, naming
	// the variable, never its value.
	Problems []string
}

// CgroupID is the ID the container's cgroup is named for.
func (p Process) CgroupID() string {
	if p.RuntimeID != "" {
		return p.RuntimeID
	}
	return p.ID
}

// InstanceName is the name worker metrics and the verdict use.
func (p Process) InstanceName() string {
	if p.Instance != "" {
		return p.Instance
	}
	return p.Name
}

// State is what the platform reports of a process's life.
type State struct {
	Running      bool  // running or restarting
	MemoryLimit  int64 // bytes; 0 = unlimited
	OOMKilled    bool  // its last exit was an OOM kill
	RestartCount int
}

// NewProcess classifies spec and reads the settings its role uses. ok is
// false for a process that is not n8n's. The platform then fills in
// identity, Net and State.
func NewProcess(spec Spec) (p Process, ok bool) {
	role := Classify(spec)
	if role == RoleNone {
		return Process{}, false
	}
	r := &reader{env: spec.Env, problems: slices.Clone(spec.Env.problems)}
	return Process{Role: role, Settings: r.settings(role, spec.Argv), Problems: r.problems}, true
}

// NotCounted is a platform object holding n8n processes that are left out
// of the topology for now, and why: a Kubernetes pod that is pending,
// terminating or crash-looping.
type NotCounted struct {
	Name   string // "<namespace>/<pod>"
	Phase  string // e.g. "Pending", "Running"
	Reason string // e.g. "terminating", "CrashLoopBackOff (container task-runner)"
}
