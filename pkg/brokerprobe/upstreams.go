package brokerprobe

import (
	"cmp"
	"net"
	"net/netip"
	"slices"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// maxUpstreams caps the distinct broker addresses a reading keeps: a probe
// dials one broker URL, so a handful is normal.
const maxUpstreams = 64

// UpstreamPeer is a broker address (IP and port) that live upstream
// connections end at, and how many do. On Docker it is the broker
// container's IP; through a Kubernetes Service it is the Service's
// ClusterIP, which names no pod.
type UpstreamPeer struct {
	Peer        route.Endpoint
	Connections int
}

// peerEndpoint reads a connection's remote address as an IP and port;
// ok is false for anything else.
func peerEndpoint(a net.Addr) (route.Endpoint, bool) {
	if a == nil {
		return route.Endpoint{}, false
	}
	return parsePeer(a.String())
}

// parsePeer reads "ip:port" or "[ipv6]:port": an IP literal, without
// zone, and a port in 1-65535. An IPv4-mapped IPv6 address reads as IPv4.
func parsePeer(s string) (route.Endpoint, bool) {
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 || ap.Addr().Zone() != "" {
		return route.Endpoint{}, false
	}
	return route.Endpoint{Host: ap.Addr().Unmap().String(), Port: int(ap.Port())}, true
}

// upstreamPeers counts the live sessions by the broker address their
// upstream connection ends at, sorted by address.
func (p *Probe) upstreamPeers() []UpstreamPeer {
	p.mu.Lock()
	counts := map[route.Endpoint]int{}
	for s := range p.conns {
		if s.upstreamKnown {
			counts[s.upstream]++
		}
	}
	p.mu.Unlock()
	var out []UpstreamPeer
	for ep, n := range counts {
		out, _ = addUpstream(out, ep, n)
	}
	return sortUpstreams(out)
}

// addUpstream adds n connections to ep's entry, or appends one while
// fewer than maxUpstreams are held; it reports whether ep was kept.
func addUpstream(ups []UpstreamPeer, ep route.Endpoint, n int) ([]UpstreamPeer, bool) {
	for i := range ups {
		if ups[i].Peer == ep {
			ups[i].Connections = min(ups[i].Connections+n, maxGauge)
			return ups, true
		}
	}
	if len(ups) >= maxUpstreams {
		return ups, false
	}
	return append(ups, UpstreamPeer{Peer: ep, Connections: min(n, maxGauge)}), true
}

// sortUpstreams orders by IP (IPv4 first), then port. Hosts are IP
// literals, as parsePeer gives them.
func sortUpstreams(ups []UpstreamPeer) []UpstreamPeer {
	slices.SortFunc(ups, func(a, b UpstreamPeer) int {
		ia, _ := netip.ParseAddr(a.Peer.Host)
		ib, _ := netip.ParseAddr(b.Peer.Host)
		return cmp.Or(ia.Compare(ib), cmp.Compare(a.Peer.Port, b.Peer.Port))
	})
	return ups
}
