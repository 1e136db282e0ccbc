package topology

import (
	"strings"
	"testing"
)

// container is a process shaped the way pkg/dockerstats translates a
// container: its own network namespace, reached by its name first.
func container(name string, role Role, host bool, addrs ...Address) Process {
	return Process{ID: name + "-id", Name: name, Role: role,
		Net: Network{Host: host, Namespace: name + "-id", Addresses: append([]Address{{Host: name, Via: ViaName}}, addrs...)}}
}

func ep(host string, port int) Endpoint { return Endpoint{Host: host, Port: port} }

func worker(p Process, port, conc int) Process {
	p.Settings.BrokerPort, p.Settings.Concurrency = Of(port), Of(conc)
	return p
}

func runner(p Process, host string, port, limit int) Process {
	p.Settings.Broker, p.Settings.RunnerLimit = Of(ep(host, port)), Of(limit)
	return p
}

func probe(p Process, routes ...Route) Process {
	p.Settings.Routes = Of(routes)
	return p
}

func hostWorker(name string, port, conc int) Process {
	return worker(container(name, RoleWorker, true), port, conc)
}

func hostRunner(name, host string, port, limit int) Process {
	return runner(container(name, RoleRunner, true), host, port, limit)
}

func runnersOf(t Topology, worker string) []string {
	for _, w := range t.Workers {
		if w.Worker.Name == worker {
			var out []string
			for _, a := range w.Runners {
				out = append(out, a.Runner.Name+"/"+a.Route())
			}
			return out
		}
	}
	return nil
}

// The lab: host networking everywhere, workers told apart by broker port,
// one runner behind a probe, one runner dialling main's broker.
func TestPairLabHostNetwork(t *testing.T) {
	main := container("n8n-lab-main", RoleMain, true)
	main.Settings.BrokerPort = Of(5679)
	probe := probe(container("n8n-lab-probe-1", RoleProbe, true), Route{Listen: ep("127.0.0.1", 5711), Upstream: ep("127.0.0.1", 5699), Name: "runner-2-1"})
	top := Pair([]Process{
		hostRunner("n8n-lab-runner-1-1", "127.0.0.1", 5689, 10),
		hostRunner("n8n-lab-runner-1-2", "localhost", 5689, 5),
		hostRunner("n8n-lab-runner-2-1", "127.0.0.1", 5711, 3),
		hostRunner("n8n-lab-runner-x", "127.0.0.1", 5679, 4),
		hostRunner("n8n-lab-runner-lost", "127.0.0.1", 5999, 4),
		hostWorker("n8n-lab-worker-2", 5699, 15),
		hostWorker("n8n-lab-worker-1", 5689, 15),
		hostWorker("n8n-lab-worker-3", 5709, 15),
		main, probe,
	})
	if len(top.Workers) != 3 || top.Workers[0].Worker.Name != "n8n-lab-worker-1" {
		t.Fatalf("workers not sorted: %+v", top.Workers)
	}
	if got := strings.Join(runnersOf(top, "n8n-lab-worker-1"), ","); got != "n8n-lab-runner-1-1/host-port,n8n-lab-runner-1-2/host-port" {
		t.Errorf("worker-1 runners: %s", got)
	}
	if got := strings.Join(runnersOf(top, "n8n-lab-worker-2"), ","); got != "n8n-lab-runner-2-1/probe n8n-lab-probe-1 (host-port) → host-port" {
		t.Errorf("worker-2 runners: %s", got)
	}
	if a := top.Workers[1].Runners[0]; a.ProbeRoute != "runner-2-1" {
		t.Errorf("worker-2's runner reaches probe route %q, want the route's label runner-2-1", a.ProbeRoute)
	}
	if got := runnersOf(top, "n8n-lab-worker-3"); len(got) != 0 {
		t.Errorf("worker-3 should have no runner, got %v", got)
	}
	if len(top.Unpaired) != 1 || top.Unpaired[0].Runner.Name != "n8n-lab-runner-lost" || top.Unpaired[0].Target != "" {
		t.Errorf("unpaired: %+v", top.Unpaired)
	}
	// main's mode was not read, so it runs no production execution: the
	// runner dialling its broker is filed under it, not under a worker.
	if len(top.Manual) != 1 || len(top.Manual[0].Runners) != 1 || top.Manual[0].Runners[0].Runner.Name != "n8n-lab-runner-x" {
		t.Errorf("manual: %+v", top.Manual)
	}
}

// Compose: bridge network, runners reach workers by service name, alias,
// container name or IP; a launcher counts like a runner.
func TestPairComposeNames(t *testing.T) {
	w1 := worker(container("stack-n8n-worker-1", RoleWorker, false, Address{Host: "n8n-worker", Via: ViaService},
		Address{Host: "n8n-worker", Via: ViaAlias}, Address{Host: "a1short", Via: ViaAlias}, Address{Host: "172.18.0.5", Via: ViaIP}), 5679, 10)
	w2 := worker(container("stack-worker-b-1", RoleWorker, false, Address{Host: "worker-b", Via: ViaService},
		Address{Host: "wb-alias", Via: ViaAlias}, Address{Host: "b2host", Via: ViaHostname}, Address{Host: "172.18.0.6", Via: ViaIP}), 5679, 10)
	mk := func(name, host string, role Role) Process {
		return runner(container(name, role, false), host, 5679, 5)
	}
	top := Pair([]Process{w1, w2,
		mk("l-service", "n8n-worker", RoleLauncher),
		mk("r-name", "stack-worker-b-1", RoleRunner),
		mk("r-alias", "wb-alias", RoleRunner),
		mk("r-ip", "172.18.0.6", RoleRunner),
		mk("r-hostname", "b2host", RoleRunner),
		mk("r-loopback", "127.0.0.1", RoleRunner), // bridge: its own loopback, no worker there
	})
	if got := strings.Join(runnersOf(top, "stack-n8n-worker-1"), ","); got != "l-service/service" {
		t.Errorf("w1: %s", got)
	}
	if got := strings.Join(runnersOf(top, "stack-worker-b-1"), ","); got != "r-alias/alias,r-hostname/hostname,r-ip/ip,r-name/name" {
		t.Errorf("w2: %s", got)
	}
	if len(top.Unpaired) != 1 || top.Unpaired[0].Runner.Name != "r-loopback" {
		t.Errorf("unpaired: %+v", top.Unpaired)
	}
}

func TestPairServiceWithoutAlias(t *testing.T) {
	w := worker(container("x-worker-1", RoleWorker, false, Address{Host: "n8n-worker", Via: ViaService}), 5679, 10)
	r := runner(container("x-runner-1", RoleLauncher, false), "n8n-worker", 5679, 10)
	wrongPort := runner(container("x-runner-2", RoleRunner, false), "n8n-worker", 5680, 10)
	top := Pair([]Process{w, r, wrongPort})
	if got := strings.Join(runnersOf(top, "x-worker-1"), ","); got != "x-runner-1/service" || len(top.Unpaired) != 1 {
		t.Errorf("got %s, unpaired %+v", got, top.Unpaired)
	}
}

// A sidecar runner sharing the worker's network namespace dials loopback.
func TestPairSharedNetns(t *testing.T) {
	w := worker(container("w", RoleWorker, false), 5679, 10)
	r := runner(container("r", RoleRunner, false), "127.0.0.1", 5679, 10)
	r.Net.Namespace = w.Net.Namespace
	other := runner(container("other", RoleRunner, false), "127.0.0.1", 5679, 10)
	top := Pair([]Process{w, r, other})
	if got := strings.Join(runnersOf(top, "w"), ","); got != "r/netns" || len(top.Unpaired) != 1 {
		t.Errorf("got %q, unpaired %+v", got, top.Unpaired)
	}
}

// A probe bound to a non-loopback address is not reached through loopback.
func TestPairProbeListenAddress(t *testing.T) {
	w := hostWorker("w", 5689, 15)
	p := probe(container("p", RoleProbe, true), Route{Listen: ep("10.1.2.3", 5711), Upstream: ep("127.0.0.1", 5689)})
	r := hostRunner("r", "127.0.0.1", 5711, 10)
	top := Pair([]Process{w, p, r})
	if len(top.Unpaired) != 1 {
		t.Errorf("runner should be unpaired, got %+v", top)
	}
}

// The lab's single host exporter runs the probes in-process: its probe
// nodes pair runners dialling their listen ports, and a discovered probe
// container on the same listener is recognised.
func TestPairInProcessProbe(t *testing.T) {
	p, err := InProcessProbe("runner-1-1", "127.0.0.1:5711", "http://127.0.0.1:5689")
	if err != nil {
		t.Fatal(err)
	}
	top := Pair([]Process{hostWorker("w1", 5689, 15), hostRunner("r", "127.0.0.1", 5711, 2), p})
	if got := strings.Join(runnersOf(top, "w1"), ","); got != "r/probe runner-1-1 (host-port) → host-port" {
		t.Errorf("runners of w1: %q", got)
	}
	if a := top.Workers[0].Runners[0]; a.Probe != "runner-1-1" || a.ProbeRoute != "runner-1-1" {
		t.Errorf("in-process probe and route %q %q, want runner-1-1 for both", a.Probe, a.ProbeRoute)
	}
	for _, bad := range [][2]string{{"nohostport", "http://127.0.0.1:5689"}, {"127.0.0.1:5711", "::"}} {
		if _, err := InProcessProbe("x", bad[0], bad[1]); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
	wildcard := probe(Process{Role: RoleProbe}, Route{Listen: ep("0.0.0.0", 5711)})
	cases := []struct {
		cs   []Process
		want bool
	}{{[]Process{p}, true}, {[]Process{wildcard}, true}, {[]Process{hostRunner("r", "127.0.0.1", 5711, 2)}, false},
		{[]Process{probe(Process{Role: RoleProbe}, Route{Listen: ep("127.0.0.1", 5712)})}, false}}
	for i, c := range cases {
		if got := ListensOn(c.cs, ep("127.0.0.1", 5711)); got != c.want {
			t.Errorf("case %d: ListensOn %v, want %v", i, got, c.want)
		}
	}
}
