package collector

import (
	"net/netip"
	"testing"
)

// FuzzParseProbeMetrics feeds arbitrary bodies to the sidecar parser: it
// never panics, and what it accepts holds only bounded figures and, as
// upstreams, distinct IP-and-port peers sorted by address, each with at
// least one connection.
func FuzzParseProbeMetrics(f *testing.F) {
	seed := probeText("p", 1, 4, 3, 2.5) + "# TYPE n8n_runner_upstream_connections gauge\n"
	f.Add(seed + `n8n_runner_upstream_connections{peer="172.18.0.12:5679",probe="p"} 2` + "\n")
	f.Add(seed + `n8n_runner_upstream_connections{peer="[fd00::1]:5679",probe="p"} 1` + "\n" +
		`n8n_runner_upstream_connections{peer="10.0.0.1:1",probe="p"} 1e300` + "\n")
	f.Add(seed + `n8n_runner_upstream_connections{peer="n8n-worker:5679",probe="p"} NaN` + "\n")
	f.Add(seed + `n8n_runner_upstream_connections{peer="[fe80::1%eth0]:5679",probe="q"} -1` + "\n")
	f.Fuzz(func(t *testing.T, body string) {
		readings, err := parseProbeMetrics([]byte(body))
		if err != nil {
			return
		}
		for _, rd := range readings {
			if rd.Running < 0 || rd.OffersOpen < 0 || rd.InferredLimit < 0 || rd.BadUpstreams < 0 {
				t.Fatalf("negative figure: %+v", rd)
			}
			var prev netip.AddrPort
			for i, u := range rd.Upstreams {
				a, err := netip.ParseAddr(u.Peer.Host)
				if err != nil || a.Zone() != "" || a.Is4In6() || a.String() != u.Peer.Host || u.Peer.Port < 1 || u.Peer.Port > 65535 ||
					u.Connections < 1 || u.Connections > 1e6 {
					t.Fatalf("upstream %+v", u)
				}
				ap := netip.AddrPortFrom(a, uint16(u.Peer.Port))
				if i > 0 && ap.Compare(prev) <= 0 {
					t.Fatalf("upstreams not sorted and distinct: %+v", rd.Upstreams)
				}
				prev = ap
			}
		}
	})
}
