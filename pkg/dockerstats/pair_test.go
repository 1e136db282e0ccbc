package dockerstats

import (
	"strings"
	"testing"
)

func hostWorker(name string, port, conc int) Container {
	return Container{ID: name + "-id", Name: name, Role: RoleWorker, NetworkMode: "host", BrokerPort: port, Concurrency: conc}
}

func hostRunner(name, host string, port, limit int) Container {
	return Container{ID: name + "-id", Name: name, Role: RoleRunner, NetworkMode: "host", Broker: Endpoint{host, port}, RunnerLimit: limit}
}

func runnersOf(t Topology, worker string) []string {
	for _, w := range t.Workers {
		if w.Worker.Name == worker {
			var out []string
			for _, a := range w.Runners {
				out = append(out, a.Runner.Name+"/"+a.Via)
			}
			return out
		}
	}
	return nil
}

// The lab: host networking everywhere, workers told apart by broker port,
// one runner behind a probe, one runner dialling main's broker.
func TestPairLabHostNetwork(t *testing.T) {
	main := Container{ID: "m", Name: "n8n-lab-main", Role: RoleMain, NetworkMode: "host", BrokerPort: 5679}
	probe := Container{ID: "p", Name: "n8n-lab-probe-1", Role: RoleProbe, NetworkMode: "host",
		Routes: []Route{{Listen: Endpoint{"127.0.0.1", 5711}, Upstream: Endpoint{"127.0.0.1", 5699}}}}
	top := Pair([]Container{
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
	if got := runnersOf(top, "n8n-lab-worker-3"); len(got) != 0 {
		t.Errorf("worker-3 should have no runner, got %v", got)
	}
	if len(top.Unpaired) != 2 || top.Unpaired[0].Target != "" || top.Unpaired[1].Target != "main n8n-lab-main" {
		t.Errorf("unpaired: %+v", top.Unpaired)
	}
}

// Compose: bridge network, runners reach workers by service name, alias,
// container name or IP; a launcher counts like a runner.
func TestPairComposeNames(t *testing.T) {
	w1 := Container{ID: "a1", Name: "stack-n8n-worker-1", Role: RoleWorker, Service: "n8n-worker", NetworkMode: "stack_default",
		Aliases: []string{"n8n-worker", "a1short"}, IPs: []string{"172.18.0.5"}, BrokerPort: 5679, Concurrency: 10}
	w2 := Container{ID: "b2", Name: "stack-worker-b-1", Role: RoleWorker, Service: "worker-b", NetworkMode: "stack_default",
		Aliases: []string{"wb-alias"}, IPs: []string{"172.18.0.6"}, Hostname: "b2host", BrokerPort: 5679, Concurrency: 10}
	mk := func(name, host string, role Role) Container {
		return Container{ID: name, Name: name, Role: role, NetworkMode: "stack_default", Broker: Endpoint{host, 5679}, RunnerLimit: 5}
	}
	top := Pair([]Container{w1, w2,
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
	w := Container{ID: "w", Name: "x-worker-1", Role: RoleWorker, Service: "n8n-worker", BrokerPort: 5679, Concurrency: 10}
	r := Container{ID: "r", Name: "x-runner-1", Role: RoleLauncher, Broker: Endpoint{"n8n-worker", 5679}, RunnerLimit: 10}
	wrongPort := Container{ID: "r2", Name: "x-runner-2", Role: RoleRunner, Broker: Endpoint{"n8n-worker", 5680}, RunnerLimit: 10}
	top := Pair([]Container{w, r, wrongPort})
	if got := strings.Join(runnersOf(top, "x-worker-1"), ","); got != "x-runner-1/service" || len(top.Unpaired) != 1 {
		t.Errorf("got %s, unpaired %+v", got, top.Unpaired)
	}
}

// A sidecar runner sharing the worker's network namespace dials loopback.
func TestPairSharedNetns(t *testing.T) {
	w := Container{ID: "0123456789abcdef", Name: "w", Role: RoleWorker, NetworkMode: "bridge", BrokerPort: 5679, Concurrency: 10}
	r := Container{ID: "r", Name: "r", Role: RoleRunner, NetworkMode: "container:0123456789ab", Broker: Endpoint{"127.0.0.1", 5679}, RunnerLimit: 10}
	if got := strings.Join(runnersOf(Pair([]Container{w, r}), "w"), ","); got != "r/netns" {
		t.Errorf("got %q", got)
	}
}

// A probe bound to a non-loopback address is not reached through loopback.
func TestPairProbeListenAddress(t *testing.T) {
	w := hostWorker("w", 5689, 15)
	p := Container{ID: "p", Name: "p", Role: RoleProbe, NetworkMode: "host",
		Routes: []Route{{Listen: Endpoint{"10.1.2.3", 5711}, Upstream: Endpoint{"127.0.0.1", 5689}}}}
	r := hostRunner("r", "127.0.0.1", 5711, 10)
	top := Pair([]Container{w, p, r})
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
	top := Pair([]Container{hostWorker("w1", 5689, 15), hostRunner("r", "127.0.0.1", 5711, 2), p})
	if got := strings.Join(runnersOf(top, "w1"), ","); got != "r/probe runner-1-1 (host-port) → host-port" {
		t.Errorf("runners of w1: %q", got)
	}
	for _, bad := range [][2]string{{"nohostport", "http://127.0.0.1:5689"}, {"127.0.0.1:5711", "::"}} {
		if _, err := InProcessProbe("x", bad[0], bad[1]); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
	any := Container{Role: RoleProbe, Routes: []Route{{Listen: Endpoint{"0.0.0.0", 5711}}}}
	cases := []struct {
		cs   []Container
		want bool
	}{{[]Container{p}, true}, {[]Container{any}, true}, {[]Container{hostRunner("r", "127.0.0.1", 5711, 2)}, false},
		{[]Container{{Role: RoleProbe, Routes: []Route{{Listen: Endpoint{"127.0.0.1", 5712}}}}}, false}}
	for i, c := range cases {
		if got := ListensOn(c.cs, Endpoint{"127.0.0.1", 5711}); got != c.want {
			t.Errorf("case %d: ListensOn %v, want %v", i, got, c.want)
		}
	}
}
