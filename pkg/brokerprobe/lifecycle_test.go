package brokerprobe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestOffersExpire(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"a","validFor":5000}`)
	relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"b","validFor":5400}`)
	assertStats(t, r.probe, 0, 2, 2)
	r.clock.Advance(4999 * time.Millisecond)
	assertStats(t, r.probe, 0, 2, 2)
	r.clock.Advance(time.Millisecond)
	assertStats(t, r.probe, 0, 1, 2)
	r.clock.Advance(400 * time.Millisecond)
	assertStats(t, r.probe, 0, 0, 2) // the limit is a peak, it stays
	// The broker accepting an expired offer leaves nothing open.
	relayText(t, broker, runner, `{"type":"broker:taskofferaccept","taskId":"t","offerId":"a"}`)
	relayText(t, runner, broker, `{"type":"runner:taskrejected","taskId":"t","reason":"Offer expired - not accepted within validity window"}`)
	assertStats(t, r.probe, 0, 0, 2)
}

// A runner whose offers trickle in one per tick has a first burst of 1;
// the limit then comes from the peak of open offers + running.
func TestLimitFromPeakWhenNoBurst(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	offer := func(id string) {
		relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"`+id+`","validFor":5000}`)
	}
	offer("a")
	r.clock.Advance(250 * time.Millisecond)
	relayText(t, broker, runner, `{"type":"broker:taskofferaccept","taskId":"t1","offerId":"a"}`)
	relayText(t, runner, broker, `{"type":"runner:taskaccepted","taskId":"t1"}`)
	offer("b")
	r.clock.Advance(250 * time.Millisecond)
	offer("c")
	assertStats(t, r.probe, 1, 2, 3)
}

// The n8nio/runners launcher offers once with validFor -1, answers the
// accept with runner:taskdeferred and drops the socket. It must not count
// as runner capacity.
func TestLauncherDeferring(t *testing.T) {
	r := newRig(t)
	launcher, broker := r.connect(t, "launcher")
	relayText(t, broker, launcher, `{"type":"broker:inforequest"}`)
	relayText(t, launcher, broker, `{"type":"runner:info","name":"launcher-javascript","types":["javascript"]}`)
	relayText(t, broker, launcher, `{"type":"broker:runnerregistered"}`)
	relayText(t, launcher, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"lo","validFor":-1}`)
	r.clock.Advance(time.Hour) // a validFor -1 offer never expires
	if c := r.probe.Connections(); len(c) != 1 || !c[0].Launcher || c[0].OffersOpen != 1 {
		t.Fatalf("launcher connection: %+v", c)
	}
	s := r.probe.Stats()
	if s.LauncherConnections != 1 || s.RunnerConnections != 0 || s.OffersOpen != 0 || s.InferredLimit != 0 {
		t.Fatalf("launcher counted as runner capacity: %+v", s)
	}
	relayText(t, broker, launcher, `{"type":"broker:taskofferaccept","taskId":"t1","offerId":"lo"}`)
	relayText(t, launcher, broker, `{"type":"runner:taskdeferred","taskId":"t1"}`)
	if err := launcher.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "")); err != nil {
		t.Fatal(err)
	}
	expectClose(t, broker, 1000, "")
	waitFor(t, "launcher gone", func() bool { return r.probe.Stats().LauncherConnections == 0 })
	want := `
# HELP n8n_runner_tasks_total Tasks that reached an outcome on the runner's websocket.
# TYPE n8n_runner_tasks_total counter
n8n_runner_tasks_total{outcome="accept_timeout",probe="test"} 0
n8n_runner_tasks_total{outcome="cancelled",probe="test"} 0
n8n_runner_tasks_total{outcome="deferred",probe="test"} 1
n8n_runner_tasks_total{outcome="done",probe="test"} 0
n8n_runner_tasks_total{outcome="error",probe="test"} 0
n8n_runner_tasks_total{outcome="lost",probe="test"} 0
n8n_runner_tasks_total{outcome="rejected",probe="test"} 0
`
	if err := testutil.CollectAndCompare(r.probe, strings.NewReader(want), "n8n_runner_tasks_total"); err != nil {
		t.Fatal(err)
	}
}

// A runner killed mid-task: the broker sees 1011, its tasks become lost
// and running returns to 0.
func TestRunnerKilledMidTask(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	startTask(t, runner, broker, "t1")
	startTask(t, runner, broker, "t2")
	assertStats(t, r.probe, 2, 0, 2)
	runner.NetConn().Close() // no close frame: the process died
	expectClose(t, broker, websocket.CloseInternalServerErr, lostReason)
	waitFor(t, "connection dropped", func() bool { return r.probe.Stats().RunnerConnections == 0 })
	s := r.probe.Stats()
	if s.Running != 0 || s.TasksFailed != 2 || s.TasksDone != 0 {
		t.Fatalf("after kill: %+v", s)
	}
	if !strings.Contains(r.logs.String(), "lost_tasks=2") {
		t.Fatalf("disconnect log does not report lost tasks:\n%s", r.logs.String())
	}
}

// startTask relays an offer, the broker's accept and the runner's accept.
func startTask(t *testing.T, runner, broker *websocket.Conn, taskID string) {
	t.Helper()
	relayText(t, runner, broker, fmt.Sprintf(`{"type":"runner:taskoffer","taskType":"javascript","offerId":"o-%s","validFor":5000}`, taskID))
	relayText(t, broker, runner, fmt.Sprintf(`{"type":"broker:taskofferaccept","taskId":"%s","offerId":"o-%s"}`, taskID, taskID)) //nolint:gocritic // JSON text, not Go quoting
	relayText(t, runner, broker, fmt.Sprintf(`{"type":"runner:taskaccepted","taskId":"%s"}`, taskID))                             //nolint:gocritic // JSON text, not Go quoting
}

// The broker drains, then shuts down with 1001: the runner gets the same
// code and reason, the runner's answer reaches the broker, and the task
// still running is lost.
func TestBrokerDrainThenGoingAway(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	startTask(t, runner, broker, "t1")
	relayText(t, broker, runner, `{"type":"broker:drain"}`)
	if c := r.probe.Connections(); len(c) != 1 || !c[0].Draining {
		t.Fatalf("drain not tracked: %+v", c)
	}
	msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "shutting-down")
	if err := broker.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	// gorilla's default close handler on the runner answers 1001 with no text.
	expectClose(t, runner, websocket.CloseGoingAway, "shutting-down")
	expectClose(t, broker, websocket.CloseGoingAway, "")
	waitFor(t, "connection closed", func() bool { return r.probe.Stats().RunnerConnections == 0 })
	if s := r.probe.Stats(); s.Running != 0 || s.TasksFailed != 1 {
		t.Fatalf("after drain close: %+v", s)
	}
	if !strings.Contains(r.logs.String(), "draining=true") {
		t.Fatalf("disconnect log lacks the drain:\n%s", r.logs.String())
	}
}

// A runner closing with its own code and reason: the broker sees exactly
// that, and the broker's reply reaches the runner.
func TestRunnerCloseCodePassesThrough(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "Shutting down")
	if err := runner.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	expectClose(t, broker, websocket.CloseNormalClosure, "Shutting down")
	expectClose(t, runner, websocket.CloseNormalClosure, "")
}

// The broker's heartbeat ping must reach the runner, and the runner's pong
// must reach the broker: the probe answers neither.
func TestPingPongEndToEnd(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	pings := make(chan string, 1)
	runner.SetPingHandler(func(data string) error {
		pings <- data
		// A payload the probe could not invent proves the pong came from here.
		return runner.WriteControl(websocket.PongMessage, []byte("runner:"+data), time.Now().Add(5*time.Second))
	})
	pongs := make(chan string, 1)
	broker.SetPongHandler(func(data string) error { pongs <- data; return nil })
	go func() { _, _, _ = runner.ReadMessage() }()
	go func() { _, _, _ = broker.ReadMessage() }()
	if err := broker.WriteControl(websocket.PingMessage, []byte("hb-1"), time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ch   chan string
		want string
	}{{pings, "hb-1"}, {pongs, "runner:hb-1"}} {
		select {
		case got := <-c.ch:
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q never arrived", c.want)
		}
	}
}
