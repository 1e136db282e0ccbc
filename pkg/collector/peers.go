package collector

import (
	"errors"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// PeerReader reads the remote ends of a container's established TCP
// connections (peers.Containers).
type PeerReader interface {
	Peers(p topology.Process) ([]topology.Endpoint, error)
}

// Why the runners' connections were not read.
const (
	whyNoPeerReader = "EXPORTER_PROC_ROOT or the cgroup files are not there"
	whyPeersOther   = "the exporter runs in another PID namespace than the containers"
)

// observePeers fills in the peers of every running runner, launcher and
// probe, the processes whose connections say which broker they dialled.
// One on the host's network is left out: its socket table is the whole
// host's, and on Docker, whose DNS answers it no name, its broker URI
// reaches by loopback or IP, one broker each. It returns why they were not
// read, "" when they were or none needed reading.
func (c *Collector) observePeers(ps []topology.Process) string {
	why := ""
	for i := range ps {
		p := &ps[i]
		if !p.State.Running || p.Net.Host || !p.Role.RunsTasks() && p.Role != topology.RoleProbe {
			continue
		}
		if c.cfg.Peers == nil {
			return whyNoPeerReader
		}
		peers, err := c.cfg.Peers.Peers(*p)
		switch {
		case errors.Is(err, proccpu.ErrOtherNamespace):
			why = whyPeersOther
		case err != nil:
			why = "a container's connections are not readable: " + err.Error()
		default:
			p.Peers = peers
		}
	}
	return why
}
