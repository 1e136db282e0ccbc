package peers

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Containers reads a container's peers: the first PID its cgroup lists,
// then that PID's socket tables. Every process of a container shares its
// network namespace.
type Containers struct {
	PIDs proccpu.PIDLister
	Root string
}

// Peers reads p's established connections. A cgroup that lists no PID
// the reader can see is proccpu.ErrOtherNamespace.
func (c Containers) Peers(p topology.Process) ([]topology.Endpoint, error) {
	pids, err := proccpu.PIDsOf(c.PIDs, p)
	if err != nil {
		return nil, err
	}
	return Table(c.Root, pids[0])
}
