package brokerprobe

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestHTTPSurfacePassesThrough(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name, method, path, body string
		status                   int
		wantBody                 string
	}{
		{"healthz", "GET", "/healthz", "", 200, `{"status":"ok"}`},
		{"auth ok", "POST", "/runners/auth", `{"token":"` + authToken + `"}`, 200, `{"data":{"token":"` + grant + `"}}`},
		{"auth refused", "POST", "/runners/auth", `{"token":"wrong"}`, 403, `{"code":403,"message":"Unauthorized"}`},
		{"other path", "PUT", "/some/where?x=1&y=2", "payload", http.StatusTeapot, "payload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, r.front.URL+c.path, strings.NewReader(c.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || string(body) != c.wantBody {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, body, c.status, c.wantBody)
			}
			if c.status == http.StatusTeapot && resp.Header.Get("X-Seen") != c.method+" "+c.path {
				t.Fatalf("broker saw %q", resp.Header.Get("X-Seen"))
			}
		})
	}
}

// The upgrade carries the runner's query and Authorization to the broker,
// and a refused grant reaches the runner with the broker's status and body.
func TestUpgradePassesQueryAndAuthorization(t *testing.T) {
	r := newRig(t)
	r.connect(t, "abc123")
	r.broker.mu.Lock()
	auth, uri := r.broker.lastAuth, r.broker.lastURI
	r.broker.mu.Unlock()
	if auth != "Bearer "+grant || uri != "/runners/_ws?id=abc123" {
		t.Fatalf("broker saw auth %q uri %q", auth, uri)
	}

	h := http.Header{"Authorization": {"Bearer expired-grant"}}
	_, resp, err := websocket.DefaultDialer.Dial(r.wsURL("x"), h)
	if err == nil {
		t.Fatal("upgrade with a bad grant succeeded")
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 403 || string(body) != `{"code":403,"message":"Unauthorized"}` {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}

func TestUnreachableBrokerGives502(t *testing.T) {
	r := newRig(t)
	r.broker.srv.Close()
	resp, err := http.Get(r.front.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("healthz via dead broker: %d", resp.StatusCode)
	}
	_, resp, err = websocket.DefaultDialer.Dial(r.wsURL("x"), http.Header{"Authorization": {"Bearer " + grant}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("ws via dead broker: err %v resp %v", err, resp)
	}
}

// Tokens pass through the probe but never reach its logs or metrics.
func TestNoSecretsInLogsOrMetrics(t *testing.T) {
	r := newRig(t)
	resp, err := http.Post(r.front.URL+"/runners/auth", "application/json", strings.NewReader(`{"token":"`+authToken+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	runner, broker := r.connect(t, "r")
	relayText(t, broker, runner, `{"type":"broker:tasksettings","taskId":"t","settings":{"token":"`+authToken+`"}}`)
	runner.NetConn().Close()
	_, _, _ = websocket.DefaultDialer.Dial(r.wsURL("x"), http.Header{"Authorization": {"Bearer " + authToken}})
	waitFor(t, "disconnect logged", func() bool { return strings.Contains(r.logs.String(), "runner disconnected") })

	metrics := metricsText(t, r.probe)
	if !strings.Contains(metrics, "n8n_runner_frames_total") {
		t.Fatalf("no probe metrics to check:\n%s", metrics)
	}
	for _, out := range []string{r.logs.String(), metrics} {
		for _, secret := range []string{authToken, grant} {
			if strings.Contains(out, secret) {
				t.Fatalf("secret %q leaked into:\n%s", secret, out)
			}
		}
	}
	if !strings.Contains(r.logs.String(), "status=403") {
		t.Fatalf("refused upgrade not logged:\n%s", r.logs.String())
	}
}

// TestManyConnectionsNoGoroutineLeak opens 200 relayed connections at
// once, uses and closes them, and checks every goroutine is gone.
func TestManyConnectionsNoGoroutineLeak(t *testing.T) {
	r := newRig(t)
	go echoBrokerConns(r.broker)
	// Warm up one connection so lazily started goroutines (keep-alive
	// pools) are in the baseline.
	useConnection(t, r, "warm")
	waitFor(t, "warm-up closed", func() bool { return len(r.probe.Connections()) == 0 })
	base := numGoroutines()

	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); useConnection(t, r, "c"+string(rune('a'+i%26))) }()
	}
	wg.Wait()
	waitFor(t, "all connections closed", func() bool { return len(r.probe.Connections()) == 0 })
	waitFor(t, "goroutines back to baseline", func() bool { return numGoroutines() <= base })
	if got := testutil.ToFloat64(r.probe.tally.frames[toBroker]); got != n+1 {
		t.Fatalf("frames to broker = %v, want %d", got, n+1)
	}
}

func numGoroutines() int { return runtime.NumGoroutine() }

// echoBrokerConns echoes every message on every broker-side connection
// until it closes; gorilla answers the close.
func echoBrokerConns(b *fakeBroker) {
	for c := range b.conns {
		go func() {
			defer c.Close()
			for {
				mt, msg, err := c.ReadMessage()
				if err != nil {
					return
				}
				if c.WriteMessage(mt, msg) != nil {
					return
				}
			}
		}()
	}
}

func useConnection(t *testing.T, r *rig, id string) {
	c, _, err := websocket.DefaultDialer.Dial(r.wsURL(id), http.Header{"Authorization": {"Bearer " + grant}})
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	msg := `{"type":"runner:info","name":"` + id + `","types":["javascript"]}`
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Error(err)
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, got, err := c.ReadMessage(); err != nil || string(got) != msg {
		t.Errorf("echo: %q %v", got, err)
		return
	}
	_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "done"))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Errorf("close reply: %v", err)
	}
}

// Headers named in Connection apply to one hop: the probe drops them from
// plain requests, their responses and the websocket upgrade, and keeps the
// end-to-end ones.
func TestConnectionNamedHeadersDropped(t *testing.T) {
	r := newRig(t)
	req, _ := http.NewRequest("GET", r.front.URL+"/headers", nil)
	req.Header.Set("Connection", "X-Hop-Req, keep-alive")
	req.Header.Set("X-Hop-Req", "hop")
	req.Header.Set("X-End", "end")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	seen := r.broker.header()
	if seen.Get("X-Hop-Req") != "" || seen.Get("X-End") != "end" {
		t.Errorf("broker saw %v", seen)
	}
	if resp.Header.Get("X-Hop-Resp") != "" || resp.Header.Get("X-End-Resp") != "end" {
		t.Errorf("client got %v", resp.Header)
	}

	conn := rawUpgrade(t, r, "Upgrade, X-Hop-Ws", "X-Hop-Ws: hop", "X-End: end")
	defer conn.Close()
	broker := r.broker.accept(t)
	seen = r.broker.header()
	if seen.Get("X-Hop-Ws") != "" || seen.Get("X-End") != "end" || seen.Get("Authorization") != "Bearer "+grant {
		t.Errorf("broker's upgrade saw %v", seen)
	}
	if err := broker.WriteMessage(websocket.TextMessage, []byte(`{"type":"broker:inforequest"}`)); err != nil {
		t.Fatal(err)
	}
	if got := readRawFrame(t, conn); got != `{"type":"broker:inforequest"}` {
		t.Fatalf("runner got %q", got)
	}
}

// rawUpgrade sends a websocket upgrade by hand, since gorilla's dialer
// will not send a Connection header of the caller's, and returns the
// connection once the probe answered 101.
func rawUpgrade(t *testing.T, r *rig, connection string, extra ...string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.front.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	lines := append([]string{"GET /runners/_ws?id=raw HTTP/1.1", "Host: probe", "Upgrade: websocket",
		"Connection: " + connection, "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
		"Authorization: Bearer " + grant}, extra...)
	if _, err := io.WriteString(conn, strings.Join(lines, "\r\n")+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(&oneByteReader{conn}), nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return conn
}

// oneByteReader keeps bufio from reading past the handshake, so the
// frames after it stay on the connection.
type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// readRawFrame reads one short unmasked server-to-client text frame.
func readRawFrame(t *testing.T, conn net.Conn) string {
	t.Helper()
	head := make([]byte, 2)
	if _, err := io.ReadFull(conn, head); err != nil {
		t.Fatal(err)
	}
	if head[0] != 0x81 || head[1] >= 126 {
		t.Fatalf("not a short final text frame: % x", head)
	}
	body := make([]byte, head[1])
	if _, err := io.ReadFull(conn, body); err != nil {
		t.Fatal(err)
	}
	return string(body)
}
