package dockerstats

import (
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

func loadInspect(t *testing.T, name string) container.InspectResponse {
	return dockertest.Inspect(t, "testdata/"+name)
}

// The fixtures are inspect output of containers shaped like the lab's
// (same argv, env names, host networking), captured from dockerd 20.10.
func TestFromInspectLabFixtures(t *testing.T) {
	type want struct {
		name                                    string
		role                                    topology.Role
		concurrency, brokerPort, n8nPort, limit int
		broker                                  topology.Endpoint
	}
	cases := []struct {
		file string
		want want
	}{
		{"inspect-lab-main.json", want{name: "fx-main", role: topology.RoleMain, brokerPort: 5679, n8nPort: 5678}},
		{"inspect-lab-worker-1.json", want{name: "fx-worker-1", role: topology.RoleWorker, concurrency: 15, brokerPort: 5689}},
		{"inspect-lab-runner-1-1.json", want{name: "fx-runner-1-1", role: topology.RoleRunner, limit: 10, broker: topology.Endpoint{Host: "127.0.0.1", Port: 5689}}},
		{"inspect-lab-probe-1.json", want{name: "fx-probe-1", role: topology.RoleProbe}},
	}
	for _, c := range cases {
		got, ok := FromInspect(loadInspect(t, c.file))
		if !ok {
			t.Fatalf("%s: not classified as n8n", c.file)
		}
		w, s := c.want, got.Settings
		if got.Name != w.name || got.Role != w.role || s.Concurrency.Value != w.concurrency || s.BrokerPort.Value != w.brokerPort ||
			s.N8nPort.Value != w.n8nPort || s.RunnerLimit.Value != w.limit || s.Broker.Value != w.broker {
			t.Errorf("%s: got %+v", c.file, got)
		}
		if !got.Net.Host || !got.State.Running || len(got.ID) != 64 || len(got.Problems) != 0 {
			t.Errorf("%s: host %v running %v id %q problems %v", c.file, got.Net.Host, got.State.Running, got.ID, got.Problems)
		}
	}
	p, _ := FromInspect(loadInspect(t, "inspect-lab-probe-1.json"))
	route := topology.Route{Listen: topology.Endpoint{Host: "127.0.0.1", Port: 5711}, Upstream: topology.Endpoint{Host: "127.0.0.1", Port: 5689}, Name: "runner-1"}
	if r := p.Settings.Routes.Value; len(r) != 1 || r[0] != route {
		t.Errorf("probe routes %+v, want %+v", r, route)
	}
}

// inspected is a compose-shaped inspect response.
func inspected(id, name, mode, service, hostname string, argv []string, env []string, nets map[string]*network.EndpointSettings) container.InspectResponse {
	return container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{ID: id, Name: "/" + name, Path: argv[0], Args: argv[1:],
			HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode(mode)}, State: &container.State{Running: true}},
		Config:          &container.Config{Hostname: hostname, Env: env, Labels: map[string]string{ComposeServiceLabel: service}},
		NetworkSettings: &container.NetworkSettings{Networks: nets},
	}
}

// A compose worker is reached by name, service, alias, hostname and IP, in
// that order; a sidecar in container:<x> mode shares x's namespace, x given
// by name, ID or a 12-character prefix.
func TestFromInspectNetworks(t *testing.T) {
	worker := []string{"n8n", "worker"}
	runner := []string{"node", "/usr/lib/node_modules/@n8n/task-runner/dist/start.js"}
	const id = "0123456789abcdef0123"
	w, ok := FromInspect(inspected(id, "Stack-Worker-1", "stack_default", "N8N-Worker", "wHost", worker, []string{"N8N_RUNNERS_MODE=external"},
		map[string]*network.EndpointSettings{"stack_default": {Aliases: []string{"N8N-Worker", "short"}, IPAddress: "172.18.0.5", GlobalIPv6Address: "fd00::5"}}))
	var addrs []string
	for _, a := range w.Net.Addresses {
		addrs = append(addrs, a.Via+"="+a.Host)
	}
	want := "name=stack-worker-1,service=n8n-worker,alias=n8n-worker,alias=short,hostname=whost,ip=172.18.0.5,ip=fd00::5"
	if got := strings.Join(addrs, ","); !ok || got != want || w.Net.Host || w.Net.Namespace != id {
		t.Fatalf("addresses %s, namespace %q", got, w.Net.Namespace)
	}
	ps := []topology.Process{w}
	for i, ref := range []string{"Stack-Worker-1", id, id[:12], "elsewhere"} {
		r, _ := FromInspect(inspected("r"+string(rune('0'+i)), "r"+string(rune('0'+i)), "container:"+ref, "", "",
			runner, []string{"N8N_RUNNERS_TASK_BROKER_URI=http://localhost:5679"}, nil))
		ps = append(ps, r)
	}
	joinNamespaces(ps)
	top := topology.Pair(ps)
	var via []string
	for _, a := range top.Workers[0].Runners {
		via = append(via, a.Runner.Name+"/"+a.Route())
	}
	if got := strings.Join(via, ","); got != "r0/netns,r1/netns,r2/netns" || len(top.Unpaired) != 1 || ps[4].Net.Namespace != "elsewhere" {
		t.Errorf("runners %s, unpaired %+v", got, top.Unpaired)
	}
}

// Names resolve per user-defined network; the default bridge gives only
// its IP.
func TestFromInspectNetworkScopes(t *testing.T) {
	w, _ := FromInspect(inspected("id1", "w1", "p_default", "n8n-worker", "", []string{"n8n", "worker"}, nil,
		map[string]*network.EndpointSettings{"p_default": {IPAddress: "172.18.0.5"}, "bridge": {IPAddress: "172.17.0.5"}, "edge": {Aliases: []string{"wk"}, IPAddress: "172.20.0.5"}}))
	var addrs []string
	for _, a := range w.Net.Addresses {
		addrs = append(addrs, a.Via+"="+a.Host+"@"+a.Network)
	}
	want := "name=w1@edge,name=w1@p_default,service=n8n-worker@edge,service=n8n-worker@p_default,alias=wk@edge,ip=172.17.0.5@bridge,ip=172.20.0.5@edge,ip=172.18.0.5@p_default"
	if got := strings.Join(addrs, ","); got != want || strings.Join(w.Net.Networks, ",") != "bridge,edge,p_default" {
		t.Errorf("addresses\n%s\nwant\n%s\nnetworks %v", got, want, w.Net.Networks)
	}
}

// A container's n8n-ceiling.io/ labels declare what its env leaves unset;
// the env's own values stand.
func TestFromInspectDeclaredLabels(t *testing.T) {
	in := inspected("r1", "runner-1", "bridge", "n8n-runner", "r1", []string{"node", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"},
		[]string{"N8N_RUNNERS_TASK_BROKER_URI=http://n8n-worker:5679"}, nil)
	in.Config.Labels[topology.DeclarePrefix+"N8N_RUNNERS_MAX_CONCURRENCY"] = "4"
	in.Config.Labels[topology.DeclarePrefix+"N8N_RUNNERS_TASK_BROKER_URI"] = "http://elsewhere:5679"
	p, ok := FromInspect(in)
	if !ok || p.Role != topology.RoleRunner {
		t.Fatalf("role %q", p.Role)
	}
	if l := p.Settings.RunnerLimit; l.Value != 4 || l.From != topology.SourceDeclared {
		t.Errorf("limit %+v", l)
	}
	if b := p.Settings.Broker; b.Value.Host != "n8n-worker" || b.From != topology.SourceEnv {
		t.Errorf("broker %+v", b)
	}
}
