package brokerprobe

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gorilla/websocket"
)

// BenchmarkRelay compares a websocket echo reached directly with the same
// echo reached through the probe, in the same run, for 1 KiB and 1 MiB
// messages. It reports messages per second (pipelined) and p50/p99 round
// trip (one message in flight) for both, and their ratios.
//
//	go test -run '^$' -bench Relay -benchtime 3s ./pkg/brokerprobe/
func BenchmarkRelay(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("msg=%dKiB", size>>10), func(b *testing.B) { benchRelay(b, size) })
	}
}

// peerBuffer sizes both benchmark peers, the same on both paths.
const peerBuffer = 32 << 10

type relayFigures struct {
	msgsPerSec float64
	p50, p99   time.Duration
}

func benchRelay(b *testing.B, size int) {
	echo := httptest.NewServer(echoHandler())
	defer echo.Close()
	p, err := New(Config{Name: "bench", Listen: "127.0.0.1:0", Upstream: echo.URL}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(p.Handler())
	defer front.Close()
	msg := benchMessage(size)
	direct := dialBench(b, echo.URL)
	proxied := dialBench(b, front.URL)
	defer direct.Close()
	defer proxied.Close()

	b.SetBytes(int64(2 * size))
	b.ResetTimer()
	d, q := newRelayStats(), newRelayStats()
	// Alternate the two paths in rounds so load from other processes
	// falls on both alike.
	for round := range benchRounds {
		n := b.N/benchRounds + min(1, b.N%benchRounds/(round+1))
		d.measure(b, direct, msg, n)
		q.measure(b, proxied, msg, n)
	}
	b.StopTimer()
	dq, qq := d.figures(), q.figures()

	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(dq.msgsPerSec, "direct-msgs/s")
	b.ReportMetric(qq.msgsPerSec, "probe-msgs/s")
	b.ReportMetric(qq.msgsPerSec/dq.msgsPerSec, "tput-ratio")
	b.ReportMetric(us(dq.p50), "direct-p50-µs")
	b.ReportMetric(us(qq.p50), "probe-p50-µs")
	b.ReportMetric(us(qq.p50-dq.p50), "added-p50-µs")
	b.ReportMetric(us(dq.p99), "direct-p99-µs")
	b.ReportMetric(us(qq.p99), "probe-p99-µs")
	b.ReportMetric(float64(qq.p99)/float64(dq.p99), "p99-ratio")
}

// benchRounds is how many times the paths take turns.
const benchRounds = 6

// relayStats accumulates one path's round trips and pipelined time.
type relayStats struct {
	rtt       *hdrhistogram.Histogram
	pipelined int
	elapsed   time.Duration
}

func newRelayStats() *relayStats {
	return &relayStats{rtt: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)}
}

// measure does n sequential round trips for latency, then n pipelined
// messages for throughput.
func (s *relayStats) measure(b *testing.B, c *websocket.Conn, msg []byte, n int) {
	buf := make([]byte, 64<<10)
	for range n {
		start := time.Now()
		sendBench(b, c, msg)
		recvBench(b, c, buf)
		_ = s.rtt.RecordValue(int64(time.Since(start) / time.Microsecond))
	}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			recvBench(b, c, buf)
		}
	}()
	for range n {
		sendBench(b, c, msg)
	}
	<-done
	s.elapsed += time.Since(start)
	s.pipelined += n
}

func (s *relayStats) figures() relayFigures {
	return relayFigures{
		msgsPerSec: float64(s.pipelined) / s.elapsed.Seconds(),
		p50:        time.Duration(s.rtt.ValueAtQuantile(50)) * time.Microsecond,
		p99:        time.Duration(s.rtt.ValueAtQuantile(99)) * time.Microsecond,
	}
}

func sendBench(b *testing.B, c *websocket.Conn, msg []byte) {
	if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
		b.Fatal(err)
	}
}

func recvBench(b *testing.B, c *websocket.Conn, buf []byte) {
	_, r, err := c.NextReader()
	if err == nil {
		_, err = io.CopyBuffer(io.Discard, r, buf)
	}
	if err != nil {
		b.Error(err)
	}
}

// echoHandler is the local upstream: it streams every message back.
func echoHandler() http.Handler {
	up := websocket.Upgrader{ReadBufferSize: peerBuffer, WriteBufferSize: peerBuffer}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			mt, rd, err := c.NextReader()
			if err != nil {
				return
			}
			wr, err := c.NextWriter(mt)
			if err != nil {
				return
			}
			if _, err := io.Copy(wr, rd); err != nil || wr.Close() != nil {
				return
			}
		}
	})
}

func dialBench(b *testing.B, base string) *websocket.Conn {
	d := websocket.Dialer{ReadBufferSize: peerBuffer, WriteBufferSize: peerBuffer}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/runners/_ws?id=bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchMessage is a broker:taskdataresponse padded to size bytes, so the
// tap parses a realistic frame on every message.
func benchMessage(size int) []byte {
	head := `{"type":"broker:taskdataresponse","taskId":"t1","requestId":"r1","data":"`
	return []byte(head + strings.Repeat("x", size-len(head)-2) + `"}`)
}
