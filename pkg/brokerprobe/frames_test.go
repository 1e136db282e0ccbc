package brokerprobe

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestBinaryFrameByteIdentical(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	payload := make([]byte, 100<<10) // crosses the 4 KiB prefix
	rng := rand.NewChaCha8([32]byte{1})
	_, _ = rng.Read(payload)
	for _, dir := range [][2]*websocket.Conn{{runner, broker}, {broker, runner}} {
		if err := dir[0].WriteMessage(websocket.BinaryMessage, payload); err != nil {
			t.Fatal(err)
		}
		expectMessage(t, dir[1], websocket.BinaryMessage, payload)
	}
	// Random bytes are no task-runner message: counted, not dropped.
	if got := testutil.ToFloat64(r.probe.tally.parseErrors); got != 2 {
		t.Fatalf("parse errors = %v, want 2", got)
	}
}

func TestMalformedJSONForwardedAndCounted(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	bad := []string{
		`{"type":"runner:taskaccepted","taskId":`,
		`not json at all`,
		`{"taskId":"t1"}`,
		`["runner:taskaccepted"]`,
		`{"type":"runner:taskaccepted","taskId":"t2"} {"x":1}`,
		`{"type":7,"taskId":"t3"}`,
		``,
	}
	for _, m := range bad {
		relayText(t, runner, broker, m)
	}
	if got := testutil.ToFloat64(r.probe.tally.parseErrors); got != float64(len(bad)) {
		t.Fatalf("parse errors = %v, want %d", got, len(bad))
	}
	assertStats(t, r.probe, 0, 0, 0) // none of them moved the state
	// The connection still works afterwards.
	relayText(t, runner, broker, `{"type":"runner:taskaccepted","taskId":"t4"}`)
	assertStats(t, r.probe, 1, 0, 1)
}

// TestLargeFrameBoundedHeap relays a 300 MiB frame and checks the heap of
// this process (sender, probe and receiver together) stays within 64 MiB
// of its baseline while it streams.
func TestLargeFrameBoundedHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("300 MiB relay skipped in -short mode")
	}
	const size = 300 << 20
	r := newRig(t)
	runner, broker := r.connect(t, "r")

	runtime.GC()
	base := heapInUse()
	stop := make(chan struct{})
	var peak uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); peak = samplePeakHeap(stop) }()

	sent := make(chan [32]byte, 1)
	go func() { sent <- writeLargeFrame(t, broker, size) }()
	got, n := readLargeFrame(t, runner)
	close(stop)
	wg.Wait()

	if want := <-sent; n != size || got != want {
		t.Fatalf("received %d bytes, hash match %v; want %d identical bytes", n, got == want, size)
	}
	if grow := int64(peak) - int64(base); grow > 64<<20 {
		t.Fatalf("heap grew %d MiB while relaying, want < 64 MiB", grow>>20)
	}
	t.Logf("heap baseline %d MiB, peak %d MiB", base>>20, peak>>20)
	if s := testutil.ToFloat64(r.probe.tally.parseErrors); s != 0 {
		t.Fatalf("the large frame's prefix did not parse (%v errors)", s)
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func samplePeakHeap(stop chan struct{}) uint64 {
	var peak uint64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		peak = max(peak, heapInUse())
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// writeLargeFrame streams a broker:taskdataresponse of size bytes in 64 KiB
// writes and returns its SHA-256.
func writeLargeFrame(t *testing.T, c *websocket.Conn, size int) [32]byte {
	h := sha256.New()
	w, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Error(err)
		return [32]byte{}
	}
	out := io.MultiWriter(w, h)
	head := []byte(`{"type":"broker:taskdataresponse","taskId":"t1","requestId":"q1","data":"`)
	_, _ = out.Write(head)
	chunk := bytes.Repeat([]byte("A"), 64<<10)
	left := size - len(head) - 2
	for left > 0 {
		n := min(left, len(chunk))
		if _, err := out.Write(chunk[:n]); err != nil {
			t.Error(err)
			return [32]byte{}
		}
		left -= n
	}
	_, _ = out.Write([]byte(`"}`))
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	return [32]byte(h.Sum(nil))
}

func readLargeFrame(t *testing.T, c *websocket.Conn) ([32]byte, int64) {
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	_, rd, err := c.NextReader()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, rd, make([]byte, 64<<10))
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil)), n
}

// A backlog of small messages is coalesced into fewer writes; every
// message must still arrive whole and in order, around a large frame and
// a forwarded ping.
func TestBacklogArrivesInOrder(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	pinged := make(chan string, 1)
	broker.SetPingHandler(func(d string) error { pinged <- d; return nil })
	var msgs [][]byte
	for i := range 500 {
		size := 20 + i%300
		if i == 250 {
			size = 200 << 10 // larger than the batch limit
		}
		msgs = append(msgs, benchMessage(size+80))
	}
	go func() {
		for i, m := range msgs {
			if i == 100 {
				_ = runner.WriteControl(websocket.PingMessage, []byte("mid"), time.Now().Add(5*time.Second))
			}
			if err := runner.WriteMessage(websocket.TextMessage, m); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for _, m := range msgs {
		expectMessage(t, broker, websocket.TextMessage, m)
	}
	select {
	case d := <-pinged:
		if d != "mid" {
			t.Fatalf("ping payload %q", d)
		}
	default:
		t.Fatal("the runner's ping did not reach the broker")
	}
}

// An id over the cap makes the frame a parse error: it is forwarded
// unchanged and moves no state; an id at the cap is tracked.
func TestOverlongIDsForwardedAndCounted(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	long, atCap := strings.Repeat("x", maxIDLen+1), strings.Repeat("y", maxIDLen)
	relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"`+long+`","validFor":5000}`)
	relayText(t, broker, runner, `{"type":"broker:taskofferaccept","taskId":"`+long+`","offerId":"o"}`)
	relayText(t, runner, broker, `{"type":"runner:taskaccepted","taskId":"`+long+`"}`)
	if got := testutil.ToFloat64(r.probe.tally.parseErrors); got != 3 {
		t.Fatalf("parse errors = %v, want 3", got)
	}
	assertStats(t, r.probe, 0, 0, 0)
	relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"`+atCap+`","validFor":5000}`)
	relayText(t, runner, broker, `{"type":"runner:taskaccepted","taskId":"`+atCap+`"}`)
	assertStats(t, r.probe, 1, 1, 2)
}
