package dockerstats

import "fmt"

// InProcessProbe is a broker probe the exporter runs itself (PROBE_LISTEN,
// PROBE_UPSTREAM, PROBE_NAME), as a probe node for Pair. It is taken to be
// on the host network: the exporter that runs probes in-process next to
// host-network runners does so on the host.
func InProcessProbe(name, listen, upstream string) (Container, error) {
	l, err := parseHostPort(listen)
	if err != nil {
		return Container{}, fmt.Errorf("probe %s: PROBE_LISTEN is not host:port", name)
	}
	u, err := parseURLEndpoint(upstream)
	if err != nil {
		return Container{}, fmt.Errorf("probe %s: PROBE_UPSTREAM is not a URL with a host", name)
	}
	return Container{ID: "in-process:" + name, Name: name, Role: RoleProbe, NetworkMode: "host",
		Routes: []Route{{Listen: l, Upstream: u}}}, nil
}

// ListensOn reports whether a discovered probe container among cs already
// has a route listening on listen: the same port, and the same host or a
// wildcard on either side. That container is the exporter itself, whose
// in-process probe must not be counted twice.
func ListensOn(cs []Container, listen Endpoint) bool {
	for _, c := range cs {
		if c.Role != RoleProbe {
			continue
		}
		for _, r := range c.Routes {
			if r.Listen.Port == listen.Port &&
				(r.Listen.Host == listen.Host || isAny(r.Listen.Host) || isAny(listen.Host)) {
				return true
			}
		}
	}
	return false
}
