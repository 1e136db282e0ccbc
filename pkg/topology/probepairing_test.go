package topology

import (
	"slices"
	"testing"
)

// probed is `--scale n8n-worker=3` with one runner behind a probe sidecar
// in its network namespace: the runner dials the probe on loopback, the
// probe dials the compose service, which Docker's DNS spreads over the
// three workers.
func probed() []Process {
	var ps []Process
	for i, ip := range []string{"172.18.0.11", "172.18.0.12", "172.18.0.13"} {
		ps = append(ps, worker(onNet("s-n8n-worker-"+string(rune('1'+i)), RoleWorker, "s_default", "n8n-worker", ip), 5679, 10))
	}
	p := probe(onNet("s-probe-1", RoleProbe, "s_default", "probe", "172.18.0.31"),
		Route{Listen: ep("0.0.0.0", 5711), Upstream: ep("n8n-worker", 5679), Name: "runner-1"})
	r := runner(onNet("s-runner-1", RoleLauncher, "s_default", "runner", "172.18.0.21"), "127.0.0.1", 5711, 5)
	r.Net.Namespace = p.Net.Namespace
	return append(ps, p, r)
}

// withProbe sets the probe's reported upstreams and its observed peers.
func withProbe(ps []Process, upstreams, peers []Endpoint) []Process {
	for i := range ps {
		if ps[i].Role == RoleProbe {
			ps[i].Upstreams, ps[i].Peers = upstreams, peers
		}
	}
	return ps
}

// pairedTo is the worker the probed runner is filed under and how, or
// "" and the spread's candidate count.
func pairedTo(t *testing.T, top Topology) (string, Pairing, int) {
	t.Helper()
	for _, w := range top.Workers {
		if len(w.Runners) == 0 {
			continue
		}
		if a := w.Runners[0]; len(w.Runners) != 1 || a.Probe != "s-probe-1" || a.ProbeRoute != "runner-1" {
			t.Errorf("%s: runners %+v, want the probed runner alone", w.Worker.Name, w.Runners)
		}
		return w.Worker.Name, w.Runners[0].Pairing, 0
	}
	if len(top.Spread) != 1 {
		t.Fatalf("runner neither paired nor spread: %+v", top)
	}
	return "", top.Spread[0].Pairing, len(top.Spread[0].Candidates)
}

func TestProbeUpstreamPairs(t *testing.T) {
	for _, tc := range []struct {
		name             string
		upstreams, peers []Endpoint
		worker           string
		pairing          Pairing
		candidates       int
	}{
		{"nothing reported", nil, nil, "", PairingAmbiguous, 3},
		{"the probe dialled worker 2", []Endpoint{ep("172.18.0.12", 5679)}, nil, "s-n8n-worker-2", PairingProbe, 0},
		{"two connections to worker 2, one elsewhere", []Endpoint{ep("10.0.0.9", 5679), ep("172.18.0.12", 5679), ep("172.18.0.12", 5679)},
			nil, "s-n8n-worker-2", PairingProbe, 0},
		// Its runner and launcher landed on two workers: either may be it.
		{"two workers", []Endpoint{ep("172.18.0.11", 5679), ep("172.18.0.12", 5679)}, nil, "", PairingAmbiguous, 3},
		{"the broker's IP on another port", []Endpoint{ep("172.18.0.12", 5680)}, nil, "", PairingAmbiguous, 3},
		{"loopback says nothing", []Endpoint{ep("127.0.0.1", 5679)}, nil, "", PairingAmbiguous, 3},
		// A Kubernetes Service's ClusterIP is no process's IP.
		{"a ClusterIP", []Endpoint{ep("10.96.14.2", 5679)}, nil, "", PairingAmbiguous, 3},
		// The kernel's socket table is the truth: it wins when both speak.
		{"sockets win over the probe", []Endpoint{ep("172.18.0.12", 5679)}, []Endpoint{ep("172.18.0.13", 5679)},
			"s-n8n-worker-3", PairingObserved, 0},
		{"both agree", []Endpoint{ep("172.18.0.13", 5679)}, []Endpoint{ep("172.18.0.13", 5679)}, "s-n8n-worker-3", PairingObserved, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top := Pair(withProbe(probed(), tc.upstreams, tc.peers))
			w, pairing, n := pairedTo(t, top)
			if w != tc.worker || pairing != tc.pairing || n != tc.candidates {
				t.Errorf("paired to %q by %s, %d candidates; want %q by %s, %d", w, pairing, n, tc.worker, tc.pairing, tc.candidates)
			}
		})
	}
}

// A runner that dials the service itself is not helped by a probe's
// upstreams: they speak only for the runners behind that probe.
func TestProbeUpstreamsSpeakForTheirRunnersOnly(t *testing.T) {
	ps := withProbe(probed(), []Endpoint{ep("172.18.0.12", 5679)}, nil)
	direct := runner(onNet("s-runner-2", RoleRunner, "s_default", "runner", "172.18.0.22"), "n8n-worker", 5679, 3)
	top := Pair(append(ps, direct))
	if len(top.Spread) != 1 || top.Spread[0].Runner.Name != "s-runner-2" || top.Spread[0].Pairing != PairingAmbiguous {
		t.Fatalf("spread %+v, want s-runner-2 alone", top.Spread)
	}
	if got := runnersOf(top, "s-n8n-worker-2"); !slices.Equal(got, []string{"s-runner-1/probe s-probe-1 (netns) → service"}) {
		t.Errorf("worker 2's runners %q", got)
	}
}

// On Kubernetes a probe sidecar dialling a Service reports the ClusterIP:
// the pairing stays ambiguous. Dialling a headless Service (or the pod's
// own IP) it reports a pod IP, which pairs it.
func TestProbeUpstreamKubernetesService(t *testing.T) {
	svc := map[int]int{80: 5679}
	var ps []Process
	for i, ip := range []string{"10.1.0.7", "10.1.0.8"} {
		w := worker(podProcess("n8n", "worker-"+string(rune('a'+i)), "n8n", RoleWorker), 5679, 10)
		w.Net.Addresses = []Address{{Host: "n8n-worker", Via: ViaService, Scope: "n8n", Ports: svc}, {Host: ip, Via: ViaIP}}
		ps = append(ps, w)
	}
	p := probe(podProcess("n8n", "runners-0", "probe", RoleProbe), Route{Listen: ep("0.0.0.0", 5711), Upstream: ep("n8n-worker", 80), Name: "r0"})
	r := runner(podProcess("n8n", "runners-0", "runner", RoleLauncher), "127.0.0.1", 5711, 5)

	p.Upstreams = []Endpoint{ep("10.96.14.2", 80)}
	top := Pair(append(slices.Clone(ps), p, r))
	if len(top.Spread) != 1 || top.Spread[0].Pairing != PairingAmbiguous || len(top.Spread[0].Candidates) != 2 {
		t.Errorf("through the ClusterIP: spread %+v, want ambiguous over both workers", top.Spread)
	}

	p.Upstreams = []Endpoint{ep("10.1.0.8", 5679)}
	top = Pair(append(slices.Clone(ps), p, r))
	if len(top.Spread) != 0 || len(top.Workers[1].Runners) != 1 || top.Workers[1].Runners[0].Pairing != PairingProbe ||
		top.Workers[1].Runners[0].Target != "n8n/worker-b" {
		t.Errorf("through a pod IP: spread %+v, worker-b %+v", top.Spread, top.Workers[1].Runners)
	}
}
