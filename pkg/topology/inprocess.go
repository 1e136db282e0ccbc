package topology

import (
	"errors"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// InProcessPrefix starts the ID of every in-process probe node.
const InProcessPrefix = "in-process:"

// InProcessProbe is a broker probe the exporter runs itself (PROBE_LISTEN,
// PROBE_UPSTREAM, PROBE_NAME), as a probe node for Pair. It is taken to be
// on the host network: the exporter that runs probes in-process next to
// host-network runners does so on the host. It has no name that resolves.
func InProcessProbe(name, listen, upstream string) (Process, error) {
	l, err := route.ParseListen(listen)
	if err != nil {
		return Process{}, errors.New("probe " + name + ": PROBE_LISTEN is not host:port")
	}
	u, err := route.ParseUpstream(upstream)
	if err != nil {
		return Process{}, errors.New("probe " + name + ": PROBE_UPSTREAM is not a URL with a host")
	}
	return Process{ID: InProcessPrefix + name, Name: name, Role: RoleProbe, Net: Network{Host: true},
		Settings: Settings{Routes: Of([]Route{{Listen: l, Upstream: u.Endpoint, Name: name}})}}, nil
}

// ListensOn reports whether a discovered probe among ps already has a
// route listening on listen: the same port, and the same host or a
// wildcard on either side. That probe is the exporter itself, whose
// in-process probe must not be counted twice.
func ListensOn(ps []Process, listen Endpoint) bool {
	for _, p := range ps {
		if p.Role != RoleProbe {
			continue
		}
		for _, r := range p.Settings.Routes.Value {
			if r.Listen.Port == listen.Port &&
				(r.Listen.Host == listen.Host || isAny(r.Listen.Host) || isAny(listen.Host)) {
				return true
			}
		}
	}
	return false
}
