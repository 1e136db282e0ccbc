package brokerprobe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// acceptTimeouts relays n broker accepts the runner never answers, each
// cancelled when n8n's accept window elapses.
func acceptTimeouts(t *testing.T, runner, broker *websocket.Conn, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		relayText(t, broker, runner, fmt.Sprintf(`{"type":"broker:taskofferaccept","taskId":"t%d","offerId":"o%d"}`, i, i))
		relayText(t, broker, runner, fmt.Sprintf(`{"type":"broker:taskcancel","taskId":"t%d","reason":"Acknowledgement window elapsed"}`, i))
	}
}

// brokerCloses sends the broker's 1002 close, which n8n sends without a
// reason, checks the runner gets it and the runner's answer the broker,
// and waits until the probe has no connection left.
func brokerCloses(t *testing.T, r *rig, runner, broker *websocket.Conn) {
	t.Helper()
	brokerClosesOne(t, runner, broker)
	waitFor(t, "connection closed", func() bool { return len(r.probe.Connections()) == 0 })
}

// brokerClosesOne sends the broker's 1002 close on one connection and
// checks both sides get it.
func brokerClosesOne(t *testing.T, runner, broker *websocket.Conn) {
	t.Helper()
	msg := websocket.FormatCloseMessage(websocket.CloseProtocolError, "")
	if err := broker.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	expectClose(t, runner, websocket.CloseProtocolError, "")
	expectClose(t, broker, websocket.CloseProtocolError, "") // gorilla's runner answers 1002
}

// A 1002 close from the broker is runner-unresponsive when n8n's 3
// consecutive accept timeouts came first, else other (a missed heartbeat
// closes with the same code and no reason). An answer in time breaks the
// run, as it resets the broker's count; the runner's own 1002 answer is
// not the broker's close.
func TestUnresponsiveCloses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, runner, broker *websocket.Conn)
		want   string
	}{
		{"three accept timeouts", func(t *testing.T, runner, broker *websocket.Conn) {
			acceptTimeouts(t, runner, broker, 1, 3)
		}, "runner-unresponsive"},
		{"no accept timeout", func(*testing.T, *websocket.Conn, *websocket.Conn) {}, "other"},
		{"run broken by an answer in time", func(t *testing.T, runner, broker *websocket.Conn) {
			acceptTimeouts(t, runner, broker, 1, 2)
			relayText(t, broker, runner, `{"type":"broker:taskofferaccept","taskId":"t3","offerId":"o3"}`)
			relayText(t, runner, broker, `{"type":"runner:taskrejected","taskId":"t3","reason":"Offer expired - not accepted within validity window"}`)
			acceptTimeouts(t, runner, broker, 4, 1)
		}, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			runner, broker := r.connect(t, "r")
			tc.before(t, runner, broker)
			brokerCloses(t, r, runner, broker)
			want := fmt.Sprintf(`
# HELP n8n_runner_unresponsive_closes_total Connections the broker closed with 1002, as n8n closes a runner it reports unresponsive or that missed a heartbeat; runner-unresponsive when the probe saw n8n's 3 consecutive accept timeouts first.
# TYPE n8n_runner_unresponsive_closes_total counter
n8n_runner_unresponsive_closes_total{probe="test",reason="other"} %d
n8n_runner_unresponsive_closes_total{probe="test",reason="runner-unresponsive"} %d
`, btoi(tc.want == "other"), btoi(tc.want == "runner-unresponsive"))
			if err := testutil.CollectAndCompare(r.probe, strings.NewReader(want), "n8n_runner_unresponsive_closes_total"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Closes with any other code, from either side, are not counted.
func TestOtherClosesNotCountedUnresponsive(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	acceptTimeouts(t, runner, broker, 1, 3)
	msg := websocket.FormatCloseMessage(websocket.CloseProtocolError, "")
	if err := runner.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	expectClose(t, broker, websocket.CloseProtocolError, "")
	runner2, broker2 := r.connect(t, "r2")
	acceptTimeouts(t, runner2, broker2, 1, 3)
	msg = websocket.FormatCloseMessage(websocket.CloseGoingAway, "")
	if err := broker2.WriteControl(websocket.CloseMessage, msg, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	expectClose(t, runner2, websocket.CloseGoingAway, "")
	waitFor(t, "connections closed", func() bool { return len(r.probe.Connections()) == 0 })
	for i, c := range r.probe.tally.closes {
		if v := testutil.ToFloat64(c); v != 0 {
			t.Errorf("%s closes: %v, want 0", unresponsiveLabels[i], v)
		}
	}
}

// Each connection the broker tells to drain counts once, however many
// broker:drain it sends.
func TestDrainsCounted(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	runner2, broker2 := r.connect(t, "r2")
	relayText(t, broker, runner, `{"type":"broker:drain"}`)
	relayText(t, broker, runner, `{"type":"broker:drain"}`)
	if v := testutil.ToFloat64(r.probe.tally.drains); v != 1 {
		t.Fatalf("drains after one connection drained: %v, want 1", v)
	}
	relayText(t, broker2, runner2, `{"type":"broker:drain"}`)
	want := `
# HELP n8n_runner_drains_total Connections the broker told to drain (broker:drain), as n8n does when it shuts down.
# TYPE n8n_runner_drains_total counter
n8n_runner_drains_total{probe="test"} 2
`
	if err := testutil.CollectAndCompare(r.probe, strings.NewReader(want), "n8n_runner_drains_total"); err != nil {
		t.Fatal(err)
	}
}
