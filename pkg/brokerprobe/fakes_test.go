package brokerprobe

import (
	"bytes"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Test secrets; they must never show up in logs or metrics.
const (
	authToken = "secret-auth-token-123"
	grant     = "secret-grant-456"
)

// fakeBroker stands in for n8n's task broker. A fake is needed because the
// tests inject exact frame sequences (expiring offers, drains, kills,
// malformed and huge frames) that a real broker cannot be made to send on
// demand. It serves the broker's HTTP surface and hands each upgraded
// websocket to the test to script.
type fakeBroker struct {
	srv   *httptest.Server
	conns chan *websocket.Conn

	mu         sync.Mutex
	lastAuth   string
	lastURI    string
	lastHeader http.Header // of the last websocket upgrade or /headers request
}

func newFakeBroker(t *testing.T) *fakeBroker {
	t.Helper()
	b := &fakeBroker{conns: make(chan *websocket.Conn, 256)}
	up := websocket.Upgrader{ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			_, _ = io.WriteString(w, `{"status":"ok"}`)
		case "/runners/auth":
			b.serveAuth(w, r)
		case "/headers": // answers with a header its Connection names
			b.mu.Lock()
			b.lastHeader = r.Header.Clone()
			b.mu.Unlock()
			w.Header().Set("Connection", "X-Hop-Resp")
			w.Header().Set("X-Hop-Resp", "hop")
			w.Header().Set("X-End-Resp", "end")
		case "/runners/_ws":
			b.mu.Lock()
			b.lastAuth, b.lastURI = r.Header.Get("Authorization"), r.URL.RequestURI()
			b.lastHeader = r.Header.Clone()
			b.mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer "+grant {
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"code":403,"message":"Unauthorized"}`)
				return
			}
			c, err := up.Upgrade(w, r, nil)
			if err == nil {
				b.conns <- c
			}
		default: // echo the request line so pass-through can be checked
			w.Header().Set("X-Seen", r.Method+" "+r.URL.RequestURI())
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.Copy(w, r.Body)
		}
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *fakeBroker) serveAuth(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || string(body) != `{"token":"`+authToken+`"}` {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"code":403,"message":"Unauthorized"}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"data":{"token":"`+grant+`"}}`)
}

// header is the last recorded request header.
func (b *fakeBroker) header() http.Header {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastHeader
}

// accept waits for the next websocket the broker upgraded.
func (b *fakeBroker) accept(t *testing.T) *websocket.Conn {
	t.Helper()
	select {
	case c := <-b.conns:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("broker got no websocket")
		return nil
	}
}

// fakeClock lets tests step offer expiry and task time exactly.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// rig is a probe between a fake broker and scripted runners.
type rig struct {
	probe  *Probe
	broker *fakeBroker
	front  *httptest.Server
	clock  *fakeClock
	logs   *testtool.SyncBuffer
}

// newRig builds the rig; opts adjust the probe before it serves.
func newRig(t *testing.T, opts ...func(*Probe)) *rig {
	t.Helper()
	b := newFakeBroker(t)
	logs := &testtool.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(Config{Name: "test", Listen: "127.0.0.1:0", Upstream: b.srv.URL}, logger)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	p.now = clock.Now
	for _, o := range opts {
		o(p)
	}
	front := httptest.NewServer(p.Handler())
	t.Cleanup(front.Close)
	return &rig{probe: p, broker: b, front: front, clock: clock, logs: logs}
}

func (r *rig) wsURL(id string) string {
	return "ws" + strings.TrimPrefix(r.front.URL, "http") + "/runners/_ws?id=" + id
}

// fakeRunner dials the probe the way n8n's runner does: bearer grant
// token and its id in the query. It returns both ends of the relay.
func (r *rig) connect(t *testing.T, id string) (runner, broker *websocket.Conn) {
	t.Helper()
	h := http.Header{"Authorization": {"Bearer " + grant}}
	runner, _, err := websocket.DefaultDialer.Dial(r.wsURL(id), h)
	if err != nil {
		t.Fatalf("runner dial: %v", err)
	}
	t.Cleanup(func() { runner.Close() })
	return runner, r.broker.accept(t)
}

// relayText sends msg from one end and asserts the other end receives the
// same bytes as a text message.
func relayText(t *testing.T, from, to *websocket.Conn, msg string) {
	t.Helper()
	if err := from.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("write %q: %v", msg, err)
	}
	expectMessage(t, to, websocket.TextMessage, []byte(msg))
}

func expectMessage(t *testing.T, c *websocket.Conn, wantType int, want []byte) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	mt, got, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if mt != wantType || !bytes.Equal(got, want) {
		t.Fatalf("got type %d %q, want type %d %q", mt, clip(got), wantType, clip(want))
	}
}

// expectClose reads until the peer's close arrives and checks its code and text.
func expectClose(t *testing.T, c *websocket.Conn, code int, text string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, err := c.ReadMessage()
	ce, ok := err.(*websocket.CloseError)
	if !ok || ce.Code != code || ce.Text != text {
		t.Fatalf("got %v, want close %d %q", err, code, text)
	}
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// waitFor polls cond for a bounded time; connection teardown is
// asynchronous, the assertion is on the state, not on the time taken.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
