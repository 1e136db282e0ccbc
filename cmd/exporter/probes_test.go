package main

import (
	"fmt"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
)

// scriptedBroker stands in for the worker's task broker: a scripted peer
// is needed to send one exact task's frames on demand, which real n8n only
// does when a workflow runs. It hands each upgraded socket to the test.
func scriptedBroker(t *testing.T) (*httptest.Server, chan *websocket.Conn) {
	conns := make(chan *websocket.Conn, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil); err == nil {
			conns <- c
		}
	}))
	t.Cleanup(srv.Close)
	return srv, conns
}

// relay writes msg on from and expects it unchanged on to.
func relay(t *testing.T, from, to *websocket.Conn, msg string) {
	t.Helper()
	if err := from.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = to.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, got, err := to.ReadMessage(); err != nil || string(got) != msg {
		t.Fatalf("relayed %q, got %q err %v", msg, got, err)
	}
}

// oneTask runs one task through the probe at listen: connect, offer,
// accept, done.
func oneTask(t *testing.T, listen string, conns chan *websocket.Conn) {
	runner, _, err := websocket.DefaultDialer.Dial("ws://"+listen+"/runners/_ws?id=r1", http.Header{"Authorization": {"Bearer g"}})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	var broker *websocket.Conn
	select {
	case broker = <-conns:
		defer broker.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the probe did not connect upstream")
	}
	relay(t, broker, runner, `{"type":"broker:inforequest"}`)
	relay(t, runner, broker, `{"type":"runner:info","name":"JS Task Runner","types":["javascript"]}`)
	relay(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}`)
	relay(t, broker, runner, `{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}`)
	relay(t, runner, broker, `{"type":"runner:taskaccepted","taskId":"t1"}`)
	relay(t, runner, broker, `{"type":"runner:taskdone","taskId":"t1","data":{}}`)
}

// The lab's shape: one exporter on the host runs the probes in-process,
// host-network runners dial them, and the worker's broker is the probes'
// upstream. Both runners count for the worker through their probes, and
// the probes' own metrics and the task time they measured are served on
// the same /metrics.
func TestExporterInProcessProbesPairRunners(t *testing.T) {
	h := dockertest.New(t, "exec /bin/sleep 300")
	rd := queuetest.Start(t)
	broker, conns := scriptedBroker(t)
	brokerPort := broker.Listener.Addr().(*net.TCPAddr).Port
	l1, l2 := freeAddr(t), freeAddr(t)
	h.Start("worker-1", dockertest.WorkerArgv("--concurrency=15"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT="+strconv.Itoa(brokerPort))...), 0)
	h.Start("runner-1-1", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://"+l1, "N8N_RUNNERS_MAX_CONCURRENCY=2"), 0)
	h.Start("runner-1-2", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://"+l2, "N8N_RUNNERS_MAX_CONCURRENCY=3"), 0)
	base := startExporter(t, []string{"EXPORTER_CONTAINER_LABEL=" + h.Filter(), "QUEUE_BULL_REDIS_HOST=127.0.0.1",
		"QUEUE_BULL_REDIS_PORT=" + strconv.Itoa(rd.Port()), "PROBE_LISTEN=" + l1 + "," + l2,
		"PROBE_UPSTREAM=" + broker.URL + "," + broker.URL, "PROBE_NAME=runner-1-1,runner-1-2"}, &testtool.SyncBuffer{})
	oneTask(t, l1, conns)

	worker := h.Name("worker-1")
	metrics := waitFor(t, base+"/metrics", `n8n_service_time_seconds{source="probe",stage="task"}`)
	for _, want := range []string{
		fmt.Sprintf(`n8n_worker_runner_capacity{worker=%q} 5`, worker),
		fmt.Sprintf(`n8n_runner_max_concurrency{runner=%q,worker=%q} 2`, h.Name("runner-1-1"), worker),
		fmt.Sprintf(`n8n_worker_bottleneck{component="runner",worker=%q} 1`, worker),
		`n8n_runner_tasks_total{outcome="done",probe="runner-1-1"} 1`,
		`n8n_runner_task_duration_seconds_count{probe="runner-1-1"} 1`,
		`n8n_runner_connections{kind="runner",probe="runner-1-2"} 0`,
		`n8n_exporter_service_time_used{source="probe",stage="task"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(metrics, `worker=""`) {
		t.Errorf("a runner came out unpaired:\n%s", metrics)
	}
	landing := html.UnescapeString(get(t, base+"/"))
	for _, want := range []string{"worker " + worker + ": 15 slots, runners 2+3 → effective 5, runner-bound",
		"→ " + worker + " (probe runner-1-1 (host-port) → host-port)", "task stage: 0.0 s from probe"} {
		if !strings.Contains(landing, want) {
			t.Errorf("landing page lacks %q:\n%s", want, landing)
		}
	}
}
