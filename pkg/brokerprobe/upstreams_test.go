package brokerprobe

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// brokerEndpoint is the fake broker's listening address, as a peer of the
// probe's upstream connections reads.
func brokerEndpoint(t *testing.T, r *rig) route.Endpoint {
	t.Helper()
	ep, ok := peerEndpoint(r.broker.srv.Listener.Addr())
	if !ok {
		t.Fatalf("broker address %v is not an IP and port", r.broker.srv.Listener.Addr())
	}
	return ep
}

// upstreamSeries are the probe's n8n_runner_upstream_connections lines.
func upstreamSeries(t *testing.T, r *rig) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(metricsText(t, r.probe), "\n") {
		if strings.HasPrefix(l, "n8n_runner_upstream_connections{") {
			out = append(out, l)
		}
	}
	return out
}

// Each live relay's upstream connection counts for the broker address it
// ends at, in Stats and on /metrics; a closed one is gone from both.
func TestUpstreamPeersFollowLiveConnections(t *testing.T) {
	r := newRig(t)
	ep := brokerEndpoint(t, r)
	if ep.Host != "127.0.0.1" || ep.Port == 0 {
		t.Fatalf("broker endpoint %+v", ep)
	}
	check := func(n int) {
		t.Helper()
		var want []UpstreamPeer
		var series []string
		if n > 0 {
			want = []UpstreamPeer{{Peer: ep, Connections: n}}
			series = []string{`n8n_runner_upstream_connections{peer="127.0.0.1:` + strconv.Itoa(ep.Port) + `",probe="test"} ` + strconv.Itoa(n)}
		}
		if got := r.probe.Stats().Upstreams; !reflect.DeepEqual(got, want) {
			t.Errorf("Stats().Upstreams = %+v, want %+v", got, want)
		}
		if got := upstreamSeries(t, r); !reflect.DeepEqual(got, series) {
			t.Errorf("series %q, want %q", got, series)
		}
	}
	check(0)
	r1, b1 := r.connect(t, "r1")
	r2, b2 := r.connect(t, "r2")
	waitFor(t, "two relays", func() bool { return len(r.probe.Connections()) == 2 })
	check(2)
	// The linter (promtool check metrics' checks) passes with the series live.
	if problems, err := testutil.GatherAndLint(newPedanticRegistry(t, r.probe)); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
	r1.Close()
	expectClose(t, b1, websocket.CloseInternalServerErr, lostReason) // the broker answers, so the relay ends now
	waitFor(t, "r1 gone", func() bool { return len(r.probe.Connections()) == 1 })
	check(1)
	r2.Close()
	expectClose(t, b2, websocket.CloseInternalServerErr, lostReason)
	waitFor(t, "r2 gone", func() bool { return len(r.probe.Connections()) == 0 })
	check(0)
}

func TestParsePeer(t *testing.T) {
	for in, want := range map[string]route.Endpoint{
		"10.0.0.5:5679":            {Host: "10.0.0.5", Port: 5679},
		"[fd00::1]:5679":           {Host: "fd00::1", Port: 5679},
		"[::ffff:10.0.0.5]:5679":   {Host: "10.0.0.5", Port: 5679},
		"[FD00:0:0::1]:80":         {Host: "fd00::1", Port: 80},
		"10.96.0.10:5679":          {Host: "10.96.0.10", Port: 5679},
		"127.0.0.1:65535":          {Host: "127.0.0.1", Port: 65535},
		"[fe80::1%eth0]:5679":      {},
		"n8n-worker:5679":          {},
		"10.0.0.5":                 {},
		"10.0.0.5:0":               {},
		"10.0.0.5:65536":           {},
		"10.0.0.5:-1":              {},
		"":                         {},
		"10.0.0.5:5679\n":          {},
		"10.0.0.5:5679,10.0.0.6:1": {},
	} {
		got, ok := parsePeer(in)
		if ok != (want != route.Endpoint{}) || got != want {
			t.Errorf("parsePeer(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
}

// Decoded upstream series are merged per peer, sorted by address (IPv4
// before IPv6, numerically), and a peer that is not an IP and port, or
// past maxUpstreams distinct ones, is counted bad; a gauge under 1 adds
// nothing.
func TestDecodeUpstreams(t *testing.T) {
	text := `# TYPE n8n_runner_upstream_connections gauge
n8n_runner_upstream_connections{peer="10.0.0.10:5679",probe="a"} 1
n8n_runner_upstream_connections{peer="[fd00::1]:5679",probe="a"} 2
n8n_runner_upstream_connections{peer="10.0.0.9:5679",probe="a"} 3
n8n_runner_upstream_connections{peer="[::ffff:10.0.0.9]:5679",probe="a"} 1
n8n_runner_upstream_connections{peer="n8n-worker:5679",probe="a"} 4
n8n_runner_upstream_connections{peer="10.0.0.11:5679",probe="a"} NaN
n8n_runner_upstream_connections{peer="10.0.0.12:5679",probe="a"} -2
n8n_runner_upstream_connections{peer="10.0.0.13:5679",probe="a"} 1e300
n8n_runner_upstream_connections{probe="b"} 1
`
	for i := range maxUpstreams {
		text += `n8n_runner_upstream_connections{peer="10.1.0.` + strconv.Itoa(i) + `:1",probe="c"} 1` + "\n"
	}
	text += `n8n_runner_upstream_connections{peer="10.2.0.1:1",probe="c"} 1` + "\n"
	got := decodeText(t, text)
	if len(got) != 3 {
		t.Fatalf("decoded %d probes, want 3", len(got))
	}
	a, b, c := got[0], got[1], got[2]
	want := []UpstreamPeer{
		{Peer: route.Endpoint{Host: "10.0.0.9", Port: 5679}, Connections: 4},
		{Peer: route.Endpoint{Host: "10.0.0.10", Port: 5679}, Connections: 1},
		{Peer: route.Endpoint{Host: "10.0.0.13", Port: 5679}, Connections: maxGauge},
		{Peer: route.Endpoint{Host: "fd00::1", Port: 5679}, Connections: 2},
	}
	if !reflect.DeepEqual(a.Upstreams, want) || a.BadUpstreams != 1 {
		t.Errorf("a: upstreams %+v, bad %d; want %+v, bad 1", a.Upstreams, a.BadUpstreams, want)
	}
	if b.Upstreams != nil || b.BadUpstreams != 1 {
		t.Errorf("b: upstreams %+v, bad %d; want none, bad 1", b.Upstreams, b.BadUpstreams)
	}
	if len(c.Upstreams) != maxUpstreams || c.BadUpstreams != 1 || c.Upstreams[0].Peer.Host != "10.1.0.0" || c.Upstreams[maxUpstreams-1].Peer.Host != "10.1.0."+strconv.Itoa(maxUpstreams-1) {
		t.Errorf("c: %d upstreams, bad %d, first %+v", len(c.Upstreams), c.BadUpstreams, c.Upstreams[0])
	}
}
