package proccpu

import (
	"errors"
	"slices"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// PIDLister lists the PIDs in a container's cgroup, as the reader's PID
// namespace numbers them (cgroup.Reader).
type PIDLister interface {
	Procs(id, parent string) ([]int, error)
}

// ErrOtherNamespace means a container's cgroup lists no PID the reader
// can see: it is in another PID namespace than the container's processes.
var ErrOtherNamespace = errors.New("the container's cgroup lists its processes as PID 0 or not at all: they are outside this PID namespace")

// Containers reads containers' processes: PIDs from their cgroups, CPU
// time and role from /proc.
type Containers struct {
	PIDs PIDLister
	Proc Reader
}

// Procs reads the processes of container p. A running container holds at
// least one process, so an empty list, like a PID 0, means the processes
// are outside the reader's PID namespace.
func (c Containers) Procs(p topology.Process) ([]Proc, error) {
	pids, err := PIDsOf(c.PIDs, p)
	if err != nil {
		return nil, err
	}
	return c.Proc.Read(pids)
}

// PIDsOf lists container p's PIDs from its cgroup. A running container
// holds at least one process, so an empty list, like a PID 0, is
// ErrOtherNamespace.
func PIDsOf(l PIDLister, p topology.Process) ([]int, error) {
	pids, err := l.Procs(p.CgroupID(), p.CgroupParent)
	if err != nil {
		return nil, err
	}
	if len(pids) == 0 || slices.Contains(pids, 0) {
		return nil, ErrOtherNamespace
	}
	return pids, nil
}
