package main

import (
	"context"
	"fmt"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"html"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
)

// startExporter runs the real server on a free loopback port until the
// test ends, logging at debug level into logs.
func startExporter(t *testing.T, environ []string, logs io.Writer) string {
	t.Helper()
	cfg, err := parseConfig(nil, append(environ, "EXPORTER_LISTEN=127.0.0.1:0", "EXPORTER_LOG_LEVEL=debug"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	logger := cfg.newLogger(logs)
	go func() { done <- run(ctx, cfg, logger, ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-done:
		t.Fatalf("exporter did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("exporter did not start within 10 s")
	}
	return ""
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The whole exporter against a real dockerd and redis-server: the lab's
// shapes with secrets in every container's env, a Redis password the server
// rejects, and an in-process probe. Verdict, metrics and source status are
// right, and no secret appears in /metrics, / or the logs.
func TestExporterLabShapesAndSecrets(t *testing.T) {
	h := dockertest.New(t, "exec /bin/sleep 300")
	rd := queuetest.Start(t)
	const redisSecret = "it-redis-password-31f0"
	// Redis wants another password, so the exporter's AUTH fails.
	if err := rd.Client.ConfigSet(context.Background(), "requirepass", "it-other-password").Err(); err != nil {
		t.Fatal(err)
	}
	h.Start("worker-1", dockertest.WorkerArgv("--concurrency=7"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5689")...), 0)
	h.Start("worker-2", dockertest.WorkerArgv(), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5699")...), 0)
	h.Start("runner-1-1", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=3"), 0)
	h.Start("runner-1-2", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=2"), 0)

	logs := &testtool.SyncBuffer{}
	base := startExporter(t, []string{"EXPORTER_CONTAINER_LABEL=" + h.Filter(), "QUEUE_BULL_REDIS_HOST=127.0.0.1",
		"QUEUE_BULL_REDIS_PORT=" + strconv.Itoa(rd.Port()), "QUEUE_BULL_REDIS_PASSWORD=" + redisSecret,
		"EXPORTER_SERVICE_TIME=3s", "PROBE_LISTEN=" + freeAddr(t), "PROBE_UPSTREAM=http://127.0.0.1:5689", "PROBE_NAME=it-probe"}, logs)

	metrics := waitFor(t, base+"/metrics", fmt.Sprintf(`n8n_worker_concurrency{worker=%q} 10`, h.Name("worker-2")))
	for _, want := range []string{
		fmt.Sprintf(`n8n_worker_runner_capacity{worker=%q} 5`, h.Name("worker-1")),
		fmt.Sprintf(`n8n_worker_effective_concurrency{worker=%q} 5`, h.Name("worker-1")),
		fmt.Sprintf(`n8n_worker_bottleneck{component="runner",worker=%q} 1`, h.Name("worker-1")),
		fmt.Sprintf(`n8n_worker_runner_capacity{worker=%q} 0`, h.Name("worker-2")),
		"n8n_cluster_ceiling_executions_per_second 1.6666",
		`n8n_exporter_source_up{source="docker"} 1`,
		`n8n_exporter_source_up{source="cgroup"} 1`,
		`n8n_exporter_source_up{source="redis"} 0`, // the password is refused
		`n8n_service_time_seconds{source="config",stage="job"} 3`,
		`probe="it-probe"`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	landing := html.UnescapeString(get(t, base+"/"))
	for _, want := range []string{"worker " + h.Name("worker-1") + ": 7 slots, runners 3+2 → effective 5, runner-bound; ceiling 1.7/s at 3.0 s per execution",
		"worker " + h.Name("worker-2") + " has no runner"} {
		if !strings.Contains(landing, want) {
			t.Errorf("landing page lacks %q:\n%s", want, landing)
		}
	}
	if get(t, base+"/healthz") != "ok\n" {
		t.Error("healthz")
	}
	all := metrics + landing + logs.String()
	for _, s := range append(dockertest.SecretValues, redisSecret) {
		if strings.Contains(all, s) {
			t.Errorf("secret %q leaked into /metrics, / or logs", s)
		}
	}
	if !strings.Contains(logs.String(), `"data_source":"redis"`) {
		t.Errorf("the refused Redis password should be logged as a down source:\n%s", logs.String())
	}
}

// waitFor polls (bounded) until body contains want; discovery of fresh
// containers can lag their start by a moment.
func waitFor(t *testing.T, url, want string) string {
	t.Helper()
	var body string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if body = get(t, url); strings.Contains(body, want) {
			return body
		}
	}
	t.Fatalf("%s never showed %q:\n%s", url, want, body)
	return ""
}
