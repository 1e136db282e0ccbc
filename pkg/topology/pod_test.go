package topology

import (
	"strings"
	"testing"
)

// podProcess is a container in a pod the way a Kubernetes platform would
// describe it: named <namespace>/<pod>/<container>, sharing the pod's
// network namespace, resolving names from its namespace.
func podProcess(ns, pod, ctr string, role Role) Process {
	return Process{ID: ns + "/" + pod + "/" + ctr, Name: ns + "/" + pod + "/" + ctr, Instance: ns + "/" + pod, Role: role,
		Net: Network{Namespace: ns + "/" + pod, Scope: ns}}
}

// Sidecars in a worker's pod dial loopback: a runner straight to the
// broker, or through a probe sidecar. Runners in their own pods dial a
// Service whose port 80 maps to the broker's 5679; its short name
// resolves only in its namespace, its full name everywhere.
func TestPairKubernetesPods(t *testing.T) {
	wA := worker(podProcess("n8n", "worker-a", "n8n", RoleWorker), 5679, 10)
	sidecar := runner(podProcess("n8n", "worker-a", "runner", RoleRunner), "localhost", 5679, 5)
	wB := worker(podProcess("n8n", "worker-b", "n8n", RoleWorker), 5679, 10)
	probed := runner(podProcess("n8n", "worker-b", "runner", RoleLauncher), "127.0.0.1", 5711, 4)
	p := probe(podProcess("n8n", "worker-b", "probe", RoleProbe), Route{Listen: ep("0.0.0.0", 5711), Upstream: ep("127.0.0.1", 5679)})
	svc := map[int]int{80: 5679}
	wC := worker(podProcess("n8n", "worker-c", "n8n", RoleWorker), 5679, 10)
	wC.Net.Addresses = []Address{{Host: "n8n-worker-c", Via: ViaService, Scope: "n8n", Ports: svc},
		{Host: "n8n-worker-c.n8n.svc.cluster.local", Via: ViaService, Ports: svc}, {Host: "10.1.0.7", Via: ViaIP}}
	short := runner(podProcess("n8n", "runners-0", "runner", RoleRunner), "n8n-worker-c", 80, 3)
	full := runner(podProcess("other", "runners-0", "runner", RoleRunner), "n8n-worker-c.n8n.svc.cluster.local", 80, 2)
	podIP := runner(podProcess("n8n", "runners-1", "runner", RoleRunner), "10.1.0.7", 5679, 1)
	elsewhere := runner(podProcess("other", "runners-1", "runner", RoleRunner), "n8n-worker-c", 80, 2)
	unmapped := runner(podProcess("n8n", "runners-2", "runner", RoleRunner), "n8n-worker-c", 5679, 2)
	secret := podProcess("n8n", "runners-3", "runner", RoleRunner)
	secret.Settings.Broker = Setting[Endpoint]{Unknown: "N8N_RUNNERS_TASK_BROKER_URI: from Secret n8n/runner-env"}

	top := Pair([]Process{wA, sidecar, wB, probed, p, wC, short, full, podIP, elsewhere, unmapped, secret})
	want := map[string]string{
		"n8n/worker-a/n8n": "n8n/worker-a/runner/netns",
		"n8n/worker-b/n8n": "n8n/worker-b/runner/probe n8n/worker-b/probe (netns) → netns",
		"n8n/worker-c/n8n": "n8n/runners-0/runner/service,n8n/runners-1/runner/ip,other/runners-0/runner/service",
	}
	for w, runners := range want {
		if got := strings.Join(runnersOf(top, w), ","); got != runners {
			t.Errorf("%s: runners %q, want %q", w, got, runners)
		}
	}
	if a := top.Workers[0].Runners[0]; a.Target != "n8n/worker-a" || top.Workers[0].Worker.InstanceName() != "n8n/worker-a" {
		t.Errorf("worker label: target %q instance %q", a.Target, top.Workers[0].Worker.InstanceName())
	}
	var unpaired []string
	for _, a := range top.Unpaired {
		unpaired = append(unpaired, a.Runner.Name)
	}
	if got := strings.Join(unpaired, ","); got != "n8n/runners-2/runner,n8n/runners-3/runner,other/runners-1/runner" {
		t.Errorf("unpaired %s", got)
	}
}

// A worker whose broker port is unknown cannot be matched.
func TestPairUnknownBrokerPort(t *testing.T) {
	w := podProcess("n8n", "worker-a", "n8n", RoleWorker)
	w.Settings.BrokerPort = Setting[int]{Unknown: "N8N_RUNNERS_BROKER_PORT: from Secret n8n/env"}
	r := runner(podProcess("n8n", "worker-a", "runner", RoleRunner), "127.0.0.1", 0, 5)
	if top := Pair([]Process{w, r}); len(top.Unpaired) != 1 {
		t.Errorf("paired through an unknown port: %+v", top)
	}
}

func TestNewProcess(t *testing.T) {
	env := ReadEnv([]string{"N8N_RUNNERS_AUTH_TOKEN=secret", "N8N_RUNNERS_TASK_BROKER_URI=http://n8n-worker:5679", "N8N_RUNNERS_MAX_CONCURRENCY=x"})
	p, ok := NewProcess(Spec{Argv: []string{"node", "node_modules/@n8n/task-runner/dist/start.js"}, Env: env})
	if !ok || p.Role != RoleRunner || plain(p.Settings.Broker) != Of(ep("n8n-worker", 5679)) || plain(p.Settings.RunnerLimit) != Of(10) ||
		len(p.Problems) != 1 || p.Settings.Concurrency != (Setting[int]{}) {
		t.Errorf("got %+v %v", p, ok)
	}
	if _, ok := NewProcess(Spec{Argv: []string{"redis-server"}, Env: env}); ok {
		t.Error("redis classified as n8n")
	}
	if p := (Process{Name: "n"}); p.InstanceName() != "n" || (Network{Addresses: []Address{{Host: "a", Via: ViaName}, {Host: "10.0.0.1", Via: ViaIP}}}).IP() != "10.0.0.1" {
		t.Error("InstanceName or IP")
	}
}
