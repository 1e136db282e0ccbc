package collector

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// wsBroker upgrades every /runners/_ws request and holds the connection
// until the test ends: enough of a broker for a connection to stay live.
func wsBroker(t *testing.T) *httptest.Server {
	t.Helper()
	var up websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		t.Cleanup(func() { c.Close() })
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A real probe with one live connection through it serves its upstream
// peer on /metrics; the parser reads back the probe's own Stats.
func TestParseRealProbeUpstreams(t *testing.T) {
	broker := wsBroker(t)
	p, err := brokerprobe.New(brokerprobe.Config{Name: "r1", Listen: "127.0.0.1:0", Upstream: broker.URL}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p.Handler())
	defer front.Close()
	runner, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(front.URL, "http")+"/runners/_ws?id=r", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	want := p.Stats().Upstreams
	if len(want) != 1 || want[0].Peer.String() != strings.TrimPrefix(broker.URL, "http://") || want[0].Connections != 1 {
		t.Fatalf("probe's upstreams %+v, want the broker %s once", want, broker.URL)
	}
	got, err := parseProbeMetrics(scrape(t, p))
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].Upstreams, want) || got[0].BadUpstreams != 0 {
		t.Fatalf("parsed %+v, %v; want upstreams %+v", got, err, want)
	}
}

// stack is a platform that answers the same processes every time.
type stack []topology.Process

func (s stack) Discover(context.Context) ([]topology.Process, error) { return slices.Clone(s), nil }

// probedStack is scaledStack with a probe sidecar in each runner's
// network namespace: the runner dials it on loopback, it dials
// n8n-worker:5679. Each probe's /metrics is served at the matching
// address (host:port) with the upstream peer given for it, in the
// runners' order ("" for none).
func probedStack(t *testing.T, upstreams ...string) stack {
	t.Helper()
	ps := scaledStack()
	runners := 0
	for i := range ps {
		r := &ps[i]
		if r.Role != topology.RoleLauncher {
			continue
		}
		name := strings.Replace(r.Name, "runner", "probe", 1)
		text := probeText(name, 0, 4, 0, 0) + "# TYPE n8n_runner_upstream_connections gauge\n"
		u := upstreams[runners]
		runners++
		if u != "" {
			text += `n8n_runner_upstream_connections{peer="` + u + `",probe="` + name + `"} 1` + "\n"
		}
		host, port, _ := strings.Cut(hostPort(t, serveInTurn(t, text)), ":")
		mport, _ := strconv.Atoi(port)
		p := topology.Process{ID: name, Name: name, Role: topology.RoleProbe, State: topology.State{Running: true},
			Net: topology.Network{Namespace: r.Net.Namespace, Networks: r.Net.Networks,
				Addresses: []topology.Address{{Host: host, Via: topology.ViaIP}}}}
		p.Settings.Routes = topology.Of([]topology.Route{{Listen: topology.Endpoint{Host: "0.0.0.0", Port: 5711},
			Upstream: topology.Endpoint{Host: "n8n-worker", Port: 5679}, Name: name}})
		p.Settings.MetricsPort = topology.Of(mport)
		r.Settings.Broker = topology.Of(topology.Endpoint{Host: "127.0.0.1", Port: 5711})
		ps = append(ps, p)
	}
	return ps
}

// Each probe reports the worker it dialled: two runners on worker 2, one
// on worker 1, paired "probe", and the figures are exact, not a range.
func TestSpreadResolvedByProbes(t *testing.T) {
	c := New(Config{Platform: probedStack(t, "172.18.0.12:5679", "172.18.0.12:5679", "172.18.0.11:5679"), PlatformName: "docker", ScrapeProbes: true})
	r := readProbes(c)
	checkResolvedCapacity(t, r)
	if n := testutil.CollectAndCount(reportCollector{r}, metricname.ClusterEffectiveRange); len(r.Topology.Spread) != 0 || n != 0 {
		t.Errorf("spread %d, range series %d; want none", len(r.Topology.Spread), n)
	}
	pairing := `
# HELP n8n_runner_pairing 1 per runner and the main or worker it is paired with, by what paired it: observed, probe, name, or ambiguous (one series per candidate).
# TYPE n8n_runner_pairing gauge
n8n_runner_pairing{pairing="probe",runner="s-n8n-runner-1",worker="s-n8n-worker-2"} 1
n8n_runner_pairing{pairing="probe",runner="s-n8n-runner-2",worker="s-n8n-worker-2"} 1
n8n_runner_pairing{pairing="probe",runner="s-n8n-runner-3",worker="s-n8n-worker-1"} 1
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(pairing), metricname.RunnerPairing); err != nil {
		t.Error(err)
	}
	for _, w := range r.Runners {
		if w.State == RunnerAmbiguous {
			t.Errorf("%s: state ambiguous", w.Worker)
		}
	}
}

// A probe that reports a Service's ClusterIP, or nothing, leaves its
// runner spread; `/` names what it reported. A peer that is no IP and
// port is a problem of that probe, and pairs nothing.
func TestSpreadProbeClusterIPStaysAmbiguous(t *testing.T) {
	c := New(Config{Platform: probedStack(t, "n8n-worker:5679", "", "10.96.14.2:5679"), PlatformName: "docker", ScrapeProbes: true})
	r := readProbes(c)
	if len(r.Topology.Spread) != 3 || r.Topology.Spread[0].Pairing != topology.PairingAmbiguous {
		t.Fatalf("spread %+v, want all three runners", r.Topology.Spread)
	}
	if n := testutil.CollectAndCount(reportCollector{r}, metricname.ClusterEffectiveRange); n != 2 {
		t.Errorf("range series %d, want low and high", n)
	}
	upstreams := map[string][]topology.Endpoint{}
	var problems []string
	for _, p := range r.Topology.Probes {
		upstreams[p.Name] = p.Upstreams
		problems = append(problems, p.Problems...)
	}
	wantUp := map[string][]topology.Endpoint{"s-n8n-probe-1": nil, "s-n8n-probe-2": nil, "s-n8n-probe-3": {{Host: "10.96.14.2", Port: 5679}}}
	if !reflect.DeepEqual(upstreams, wantUp) {
		t.Errorf("probes' upstreams %v, want %v", upstreams, wantUp)
	}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], metricname.RunnerUpstreamConnections+": 1 ") {
		t.Errorf("problems %q, want s-n8n-probe-1's one bad series", problems)
	}
	lines := spreadLines(r)
	var named []string
	for _, l := range lines {
		if strings.Contains(l, "10.96.14.2:5679") {
			named = append(named, l)
		}
	}
	if len(named) != 1 || !strings.HasPrefix(named[0], "probe s-n8n-probe-3 ") {
		t.Errorf("lines naming the ClusterIP: %q", named)
	}
}

// An in-process probe's upstreams reach its probe node from its Stats.
func TestInProcessProbeUpstreams(t *testing.T) {
	peer := brokerprobe.UpstreamPeer{Peer: topology.Endpoint{Host: "10.0.0.5", Port: 5679}, Connections: 2}
	probes := []Probe{{Config: brokerprobe.Config{Name: "p1", Listen: "127.0.0.1:5711", Upstream: "http://n8n-worker:5679"},
		Stats: fixedStats{Name: "p1", Upstreams: []brokerprobe.UpstreamPeer{peer}}}}
	c := New(Config{Probes: probes})
	top := c.pair(nil)
	if len(top.Probes) != 1 || !reflect.DeepEqual(top.Probes[0].Upstreams, []topology.Endpoint{peer.Peer}) {
		t.Errorf("probe nodes %+v", top.Probes)
	}
	if c.probeNodes[0].Upstreams != nil {
		t.Error("the collector's own probe node was changed")
	}
}
