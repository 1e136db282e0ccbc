package topology

import (
	"slices"
	"strings"
	"testing"
)

// onNet is a process on Docker network net, reached there by its name,
// its service and its IP, as dockerstats translates a compose container.
func onNet(name string, role Role, net, service, ip string) Process {
	p := container(name, role, false)
	p.Net.Networks = []string{net}
	p.Net.Addresses = []Address{{Host: name, Via: ViaName, Network: net}}
	if service != "" {
		p.Net.Addresses = append(p.Net.Addresses, Address{Host: service, Via: ViaService, Network: net})
	}
	p.Net.Addresses = append(p.Net.Addresses, Address{Host: ip, Via: ViaIP, Network: net})
	return p
}

// scaled is `--scale n8n-worker=3 --scale n8n-runner=3`: every runner
// dials the service name, which every worker carries.
func scaled() []Process {
	var ps []Process
	for i, ip := range []string{"172.18.0.11", "172.18.0.12", "172.18.0.13"} {
		n := string(rune('1' + i))
		ps = append(ps, worker(onNet("s-n8n-worker-"+n, RoleWorker, "s_default", "n8n-worker", ip), 5679, 10))
		ps = append(ps, runner(onNet("s-n8n-runner-"+n, RoleLauncher, "s_default", "n8n-runner", "172.18.0.2"+n), "n8n-worker", 5679, 5))
	}
	return ps
}

func TestScaledServiceIsAmbiguous(t *testing.T) {
	top := Pair(scaled())
	if len(top.Spread) != 3 {
		t.Fatalf("spread %d runners, want 3: %+v", len(top.Spread), top)
	}
	for _, s := range top.Spread {
		if s.Pairing != PairingAmbiguous || s.Via != ViaService || len(s.Candidates) != 3 || s.Candidates[0].ID != "s-n8n-worker-1-id" {
			t.Errorf("%s: pairing %s via %s candidates %v", s.Runner.Name, s.Pairing, s.Via, s.Candidates)
		}
	}
	for _, w := range top.Workers {
		if !top.SpreadOver(w.Worker.ID) {
			t.Errorf("%s is no spread runner's candidate", w.Worker.Name)
		}
		if len(w.Runners) != 0 {
			t.Errorf("%s got runners on a guess: %+v", w.Worker.Name, w.Runners)
		}
	}
}

// Each runner's socket table shows the worker it dialled: the pairing is
// observed, even for the worker that two runners dialled.
func TestObservedPeersPairExactly(t *testing.T) {
	ps := scaled()
	dialled := map[string]string{"s-n8n-runner-1": "172.18.0.12", "s-n8n-runner-2": "172.18.0.12", "s-n8n-runner-3": "172.18.0.11"}
	for i := range ps {
		if ip, ok := dialled[ps[i].Name]; ok {
			ps[i].Peers = []Endpoint{ep("127.0.0.11", 53), ep("172.18.0.13", 9999), ep(ip, 5679)}
		}
	}
	top := Pair(ps)
	got := map[string][]string{}
	for _, w := range top.Workers {
		for _, a := range w.Runners {
			if a.Pairing != PairingObserved || a.Via != ViaService {
				t.Errorf("%s: pairing %s via %s", a.Runner.Name, a.Pairing, a.Via)
			}
			got[w.Worker.Name] = append(got[w.Worker.Name], a.Runner.Name)
		}
	}
	want := map[string][]string{"s-n8n-worker-1": {"s-n8n-runner-3"}, "s-n8n-worker-2": {"s-n8n-runner-1", "s-n8n-runner-2"}}
	if len(top.Spread) != 0 || len(got) != 2 || !slices.Equal(got["s-n8n-worker-1"], want["s-n8n-worker-1"]) ||
		!slices.Equal(got["s-n8n-worker-2"], want["s-n8n-worker-2"]) {
		t.Errorf("got %v, spread %d; want %v", got, len(top.Spread), want)
	}
}

// A runner between connections has no peer at a broker: its name still
// spreads it.
func TestObservedWithoutBrokerPeerFallsBackToName(t *testing.T) {
	ps := scaled()
	for i := range ps {
		ps[i].Peers = []Endpoint{ep("172.18.0.11", 6379)}
	}
	if top := Pair(ps); len(top.Spread) != 3 {
		t.Errorf("spread %d, want 3", len(top.Spread))
	}
}

// A compose service name in another project resolves only on that
// project's network; the same name on a network both share is ambiguous,
// as Docker's DNS answers it there with both containers.
func TestServiceNameRespectsNetworks(t *testing.T) {
	a := worker(onNet("a-n8n-worker-1", RoleWorker, "a_default", "n8n-worker", "172.18.0.2"), 5679, 10)
	b := worker(onNet("b-n8n-worker-1", RoleWorker, "b_default", "n8n-worker", "172.19.0.2"), 5679, 10)
	r := runner(onNet("b-n8n-runner-1", RoleRunner, "b_default", "", "172.19.0.3"), "n8n-worker", 5679, 5)
	if got := strings.Join(runnersOf(Pair([]Process{a, b, r}), "b-n8n-worker-1"), ","); got != "b-n8n-runner-1/service" {
		t.Errorf("b's worker runners %q", got)
	}
	shared := "shared"
	for _, p := range []*Process{&a, &b, &r} {
		p.Net.Networks = append(p.Net.Networks, shared)
	}
	a.Net.Addresses = append(a.Net.Addresses, Address{Host: "n8n-worker", Via: ViaAlias, Network: shared})
	top := Pair([]Process{a, b, r})
	if len(top.Spread) != 1 || len(top.Spread[0].Candidates) != 2 {
		t.Errorf("on a shared network: spread %+v", top.Spread)
	}
}

// A name on a network the dialler is not on does not resolve; the IP is
// reached from the host's network.
func TestNamesNeedASharedNetwork(t *testing.T) {
	w := worker(onNet("w", RoleWorker, "n1", "", "10.9.0.2"), 5679, 10)
	byName := runner(onNet("r-name", RoleRunner, "n2", "", "10.8.0.2"), "w", 5679, 5)
	byIPOther := runner(onNet("r-ip", RoleRunner, "n2", "", "10.8.0.3"), "10.9.0.2", 5679, 5)
	byIPHost := hostRunner("r-host", "10.9.0.2", 5679, 5)
	top := Pair([]Process{w, byName, byIPOther, byIPHost})
	if got := strings.Join(runnersOf(top, "w"), ","); got != "r-host/ip" || len(top.Unpaired) != 2 {
		t.Errorf("runners of w %q, unpaired %d", got, len(top.Unpaired))
	}
}
