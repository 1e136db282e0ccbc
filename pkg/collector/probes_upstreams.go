package collector

import (
	"strconv"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// fillUpstreams sets each probe process's Upstreams to the broker
// addresses its routes reported dialling (routes keyed by process ID: a
// sidecar's last read, an in-process probe's own figures), and notes a
// sidecar's upstream series that were left out as a problem of its process.
func fillUpstreams(ps []topology.Process, routes []routeStats) {
	byID := map[string][]routeStats{}
	for _, r := range routes {
		byID[r.id] = append(byID[r.id], r)
	}
	for i := range ps {
		p := &ps[i]
		rs, ok := byID[p.ID]
		if !ok || p.Role != topology.RoleProbe {
			continue
		}
		p.Upstreams = nil
		bad := 0
		for _, r := range rs {
			for _, u := range r.stats.Stats().Upstreams {
				p.Upstreams = append(p.Upstreams, u.Peer)
			}
			bad += r.badUpstreams
		}
		if bad > 0 {
			p.Problems = append(p.Problems, metricname.RunnerUpstreamConnections+": "+strconv.Itoa(bad)+
				" series with a peer that is not an IP and port, or past the distinct peers kept, left out of pairing")
		}
	}
}
