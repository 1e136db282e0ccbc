package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// scaledStack is compose's `--scale n8n-worker=2 --scale n8n-runner=3`
// on network s_default: every runner dials http://n8n-worker:5679.
func scaledStack() []topology.Process {
	onNet := func(name string, role topology.Role, service, ip string) topology.Process {
		net := "s_default"
		return topology.Process{ID: name, Name: name, Role: role, State: topology.State{Running: true}, Net: topology.Network{
			Namespace: name, Networks: []string{net}, Addresses: []topology.Address{{Host: name, Via: topology.ViaName, Network: net},
				{Host: service, Via: topology.ViaService, Network: net}, {Host: ip, Via: topology.ViaIP, Network: net}}}}
	}
	var ps []topology.Process
	for i, ip := range []string{"172.18.0.11", "172.18.0.12"} {
		w := onNet("s-n8n-worker-"+string(rune('1'+i)), topology.RoleWorker, "n8n-worker", ip)
		w.Settings.Concurrency, w.Settings.Pool, w.Settings.BrokerPort = topology.Of(10), topology.Of(""), topology.Of(5679)
		w.Settings.RunnersMode = topology.Of(topology.RunnersExternal)
		ps = append(ps, w)
	}
	for i := range 3 {
		r := onNet("s-n8n-runner-"+string(rune('1'+i)), topology.RoleLauncher, "n8n-runner", "172.18.0.2"+string(rune('1'+i)))
		r.Settings.Broker, r.Settings.RunnerLimit = topology.Of(topology.Endpoint{Host: "n8n-worker", Port: 5679}), topology.Of(4)
		ps = append(ps, r)
	}
	return ps
}

// fakePeers answers each runner's socket table from a map; nil answers
// as a reader in another PID namespace.
type fakePeers map[string]string

func (f fakePeers) Peers(p topology.Process) ([]topology.Endpoint, error) {
	if f == nil {
		return nil, proccpu.ErrOtherNamespace
	}
	return []topology.Endpoint{{Host: f[p.Name], Port: 5679}}, nil
}

func spreadReport(peers PeerReader) *Report {
	c := New(Config{Peers: peers})
	ps := scaledStack()
	r := &Report{Processes: ps, Measured: []ServiceTime{{Stage: StageJob, Source: SourceRedis, Time: time.Second}}}
	r.PeersUnread = c.observePeers(r.Processes)
	r.Topology = c.pair(r.Processes)
	c.evaluate(r)
	c.judgeRunners(r)
	return r
}

// Unobserved, three runners of 4 over two workers of 10: no worker is
// published without runner, and the range holds every spread: all on one
// worker (min(10, 12) = 10) to 8 + 4 = 12.
func TestSpreadPublishesWhatHolds(t *testing.T) {
	r := spreadReport(fakePeers(nil))
	want := `
# HELP n8n_cluster_effective_concurrency_range Lowest and highest cluster effective concurrency over the placements of runners whose pairing is ambiguous.
# TYPE n8n_cluster_effective_concurrency_range gauge
n8n_cluster_effective_concurrency_range{bound="high"} 12
n8n_cluster_effective_concurrency_range{bound="low"} 10
# HELP n8n_cluster_runner_capacity Sum of the limits of the runners that serve production executions, spread ones included.
# TYPE n8n_cluster_runner_capacity gauge
n8n_cluster_runner_capacity 12
# HELP n8n_cluster_workers_without_runner Workers whose Code tasks no runner serves.
# TYPE n8n_cluster_workers_without_runner gauge
n8n_cluster_workers_without_runner 0
`
	names := []string{"n8n_cluster_effective_concurrency_range", "n8n_cluster_runner_capacity", "n8n_cluster_workers_without_runner", "n8n_worker_runner_capacity"}
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_runner_pairing"); n != 6 {
		t.Errorf("%d pairing series, want 3 runners × 2 candidates", n)
	}
	for _, w := range r.Runners {
		if w.State != RunnerAmbiguous {
			t.Errorf("%s: state %s, want ambiguous", w.Worker, w.State)
		}
	}
	if lines := Verdict(r); len(lines) < 6 {
		t.Errorf("the page has %d lines, want the workers, runners, range and fix", len(lines))
	}
	if r.PeersUnread != whyPeersOther || r.Ceiling() != 10 {
		t.Errorf("peers unread %q, ceiling %v (want the low end, 10/s)", r.PeersUnread, r.Ceiling())
	}
}

// Observed, the runners' connections say where each went: two on worker
// 2, one on worker 1.
func TestSpreadResolvedByPeers(t *testing.T) {
	r := spreadReport(fakePeers{"s-n8n-runner-1": "172.18.0.12", "s-n8n-runner-2": "172.18.0.12", "s-n8n-runner-3": "172.18.0.11"})
	checkResolvedCapacity(t, r)
	if len(r.Topology.Spread) != 0 || r.Verdict.Range != nil || r.PeersUnread != "" || r.Verdict.Effective != 12 {
		t.Errorf("spread %d, range %+v, unread %q, effective %d", len(r.Topology.Spread), r.Verdict.Range, r.PeersUnread, r.Verdict.Effective)
	}
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_runner_pairing"); n != 3 {
		t.Errorf("%d pairing series, want one per runner", n)
	}
}

// checkResolvedCapacity checks the workers' runner capacity once two
// runners of 4 are on worker 2 and one on worker 1.
func checkResolvedCapacity(t *testing.T, r *Report) {
	t.Helper()
	want := `
# HELP n8n_worker_runner_capacity Sum of the limits of the runners attached to the worker; 0 = worker without runner.
# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="s-n8n-worker-1"} 4
n8n_worker_runner_capacity{worker="s-n8n-worker-2"} 8
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_worker_runner_capacity"); err != nil {
		t.Error(err)
	}
}

// readCount counts the processes whose peers were read.
type readCount []string

func (r *readCount) Peers(p topology.Process) ([]topology.Endpoint, error) {
	*r = append(*r, p.Name)
	return nil, nil
}

// Only running runners, launchers and probes off the host's network are
// read: a host-network runner's table is the host's whole.
func TestObservePeersReadsWhatCanTell(t *testing.T) {
	ps := scaledStack()
	ps[2].Net.Host = true       // s-n8n-runner-1
	ps[3].State.Running = false // s-n8n-runner-2
	var read readCount
	if why := New(Config{Peers: &read}).observePeers(ps); why != "" || strings.Join(read, ",") != "s-n8n-runner-3" {
		t.Errorf("read %v (%q), want s-n8n-runner-3 alone", read, why)
	}
}
