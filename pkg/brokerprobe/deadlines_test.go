package brokerprobe

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// withHeartbeat runs the probe as for a broker pinging every heartbeat,
// with grace from one side's end until both sockets are cut.
func withHeartbeat(heartbeat, grace time.Duration) func(*Probe) {
	return func(p *Probe) {
		p.cfg.HeartbeatInterval = heartbeat
		p.deadlines = relayDeadlines(heartbeat)
		p.deadlines.grace = grace
	}
}

// stalledRelay connects a runner, starts two tasks, and then has the
// broker stream 1 MiB frames that the runner never reads, until the
// broker's writes stall: the probe is then blocked writing to the runner.
func stalledRelay(t *testing.T, r *rig) (runner, broker *websocket.Conn) {
	t.Helper()
	runner, broker = connectWithTasks(t, r)
	streamUntilStalled(t, broker)
	return runner, broker
}

func connectWithTasks(t *testing.T, r *rig) (runner, broker *websocket.Conn) {
	t.Helper()
	runner, broker = r.connect(t, "stalled")
	startTask(t, runner, broker, "t1")
	startTask(t, runner, broker, "t2")
	return runner, broker
}

func streamUntilStalled(t *testing.T, broker *websocket.Conn) {
	t.Helper()
	frame := benchMessage(1 << 20)
	for range 256 { // at most 256 MiB; loopback buffers fill long before
		_ = broker.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
		if err := broker.WriteMessage(websocket.TextMessage, frame); err != nil {
			return
		}
	}
	t.Fatal("256 MiB went through a runner that reads nothing")
}

// assertLost waits for the relay to end and checks its tasks were lost
// and its goroutines are gone.
func assertLost(t *testing.T, r *rig, baseGoroutines int) {
	t.Helper()
	waitFor(t, "connection dropped", func() bool { return r.probe.Stats().RunnerConnections == 0 })
	if s := r.probe.Stats(); s.Running != 0 || s.TasksFailed != 2 {
		t.Fatalf("after the relay ended: %+v", s)
	}
	waitFor(t, "goroutines back to baseline", func() bool { return numGoroutines() <= baseGoroutines })
}

// The measured failure: the runner stopped reading while the broker
// streamed large frames, then the broker closed. The relay ends within
// two heartbeats plus the grace period, its tasks counted lost.
func TestStalledRunnerThenBrokerCloses(t *testing.T) {
	r := newRig(t, withHeartbeat(time.Second, time.Second))
	base := numGoroutines()
	runner, broker := stalledRelay(t, r)
	_ = broker.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
	broker.Close()
	assertLost(t, r, base)
	runner.Close()
}

// The broker's process dies (its socket resets) while the probe is
// blocked writing to a stalled runner: the relay sees the hang-up and
// ends within the grace period, long before any deadline (60 s here).
func TestStalledRunnerThenBrokerResets(t *testing.T) {
	r := newRig(t, withHeartbeat(30*time.Second, time.Second))
	base := numGoroutines()
	runner, broker := stalledRelay(t, r)
	defer runner.Close()
	if err := broker.NetConn().(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	broker.Close()
	assertLost(t, r, base)
	if took := time.Since(start); took > r.probe.deadlines.idle/2 {
		t.Fatalf("relay took %v to end; the hang-up was not seen", took)
	}
	if logs := r.logs.String(); !strings.Contains(logs, errPeerHungUp.Error()) {
		t.Fatalf("the relay did not end on the hang-up:\n%s", logs)
	}
}

// A runner that keeps sending but stops reading: only the write stall
// deadline can end it. The broker gets 1011 and the tasks are lost.
func TestRunnerThatStopsReadingIsCut(t *testing.T) {
	r := newRig(t, withHeartbeat(time.Second, time.Second))
	base := numGoroutines()
	runner, broker := connectWithTasks(t, r)
	defer runner.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // offers every 100 ms keep the runner's side from idling
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range 200 {
			_ = runner.SetWriteDeadline(time.Now().Add(time.Second))
			if runner.WriteMessage(websocket.TextMessage, []byte(`{"type":"runner:taskoffer","offerId":"o","validFor":5000}`)) != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	streamUntilStalled(t, broker)
	closed := readUntilClose(broker)
	assertLost(t, r, base)
	if logs := r.logs.String(); !strings.Contains(logs, `close="write`) {
		t.Fatalf("the relay did not end on the stalled write:\n%s", logs)
	}
	select {
	case err := <-closed:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr || ce.Text != lostReason {
			t.Fatalf("broker got %v, want close 1011 %q", err, lostReason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the broker's side was not closed")
	}
}

// readUntilClose reads c in the background and reports the error that
// ended the reading.
func readUntilClose(c *websocket.Conn) <-chan error {
	out := make(chan error, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		for {
			if _, _, err := c.NextReader(); err != nil {
				out <- err
				return
			}
		}
	}()
	return out
}

// The broker's pings and the runner's pongs keep an otherwise idle
// connection open past two heartbeats; once they stop, the relay is cut.
func TestHeartbeatKeepsIdleConnectionOpen(t *testing.T) {
	const heartbeat = time.Second
	r := newRig(t, withHeartbeat(heartbeat, time.Second))
	runner, broker := r.connect(t, "r")
	startTask(t, runner, broker, "t1")
	runnerDone, brokerDone := readUntilClose(runner), readUntilClose(broker) // gorilla pongs while reading
	// 3 s of pings every 250 ms: longer than two heartbeats.
	for range 12 {
		if err := broker.WriteControl(websocket.PingMessage, []byte("hb"), time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(heartbeat / 4)
	}
	if s := r.probe.Stats(); s.RunnerConnections != 1 || s.Running != 1 {
		t.Fatalf("heartbeat did not keep the connection: %+v", s)
	}
	waitFor(t, "connection dropped", func() bool { return r.probe.Stats().RunnerConnections == 0 })
	for _, done := range []<-chan error{runnerDone, brokerDone} {
		var ce *websocket.CloseError
		if err := <-done; !errors.As(err, &ce) || ce.Code != websocket.CloseInternalServerErr {
			t.Fatalf("got %v, want close 1011", err)
		}
	}
	if s := r.probe.Stats(); s.TasksFailed != 1 {
		t.Fatalf("the running task was not counted lost: %+v", s)
	}
}

func TestDeadlinesFollowHeartbeat(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct{ heartbeat, want time.Duration }{{0, time.Minute}, {10 * time.Second, 20 * time.Second}} {
		p, err := New(Config{Name: "x", Listen: ":1", Upstream: "http://w:5689", HeartbeatInterval: c.heartbeat}, logger)
		if err != nil {
			t.Fatal(err)
		}
		if d := p.deadlines; d.idle != c.want || d.stall != c.want || d.grace != closeWait {
			t.Errorf("heartbeat %v: deadlines %+v, want idle and stall %v", c.heartbeat, d, c.want)
		}
	}
	_, err := New(Config{Name: "x", Listen: ":1", Upstream: "http://w:5689", HeartbeatInterval: -time.Second}, logger)
	if err == nil || !strings.Contains(err.Error(), "PROBE_HEARTBEAT_INTERVAL") {
		t.Errorf("negative heartbeat: %v", err)
	}
}

func TestParseHeartbeat(t *testing.T) {
	padded := " 5 " // surrounding spaces are trimmed
	for in, want := range map[string]time.Duration{"": 0, "30": 30 * time.Second, padded: 5 * time.Second, "1500ms": 1500 * time.Millisecond} {
		if got, err := ParseHeartbeat(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-3", "0s", "thirty", "30x"} {
		if _, err := ParseHeartbeat(in); err == nil || !strings.Contains(err.Error(), "PROBE_HEARTBEAT_INTERVAL") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
