package brokerprobe

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// batchLimit bounds the bytes held back per connection; larger writes go
// straight through.
const batchLimit = 16 << 10

var batchBuffers = sync.Pool{New: func() any { return make([]byte, 0, batchLimit) }}

// batchConn coalesces the relay's writes to one peer. The pump that reads
// the other side flushes it just before it would block waiting for input,
// so a backlog of small messages leaves in one write while a lone message
// still leaves at once: no timer, no added latency. Buffering starts only
// when the relay does, so handshakes pass straight through.
type batchConn struct {
	net.Conn
	peer atomic.Pointer[batchConn] // flushed before this conn blocks in Read

	mu  sync.Mutex
	on  bool
	buf []byte
	err error
}

// pair starts batching on both ends of a relay.
func pair(a, b *batchConn) {
	for _, c := range []*batchConn{a, b} {
		c.mu.Lock()
		c.on = true
		c.mu.Unlock()
	}
	a.peer.Store(b)
	b.peer.Store(a)
}

func (c *batchConn) Read(p []byte) (int, error) {
	if peer := c.peer.Load(); peer != nil {
		_ = peer.Flush() // a failure resurfaces on the peer's next write
	}
	return c.Conn.Read(p)
}

func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if !c.on {
		return c.Conn.Write(p)
	}
	if len(c.buf)+len(p) <= batchLimit {
		if c.buf == nil {
			c.buf = batchBuffers.Get().([]byte)
		}
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	// Too big to hold: send what is held and p in one writev.
	bufs := net.Buffers{c.buf, p}
	_, err := bufs.WriteTo(c.Conn)
	c.release()
	if err != nil {
		c.err = err
		return 0, err
	}
	return len(p), nil
}

// Flush sends what is held.
func (c *batchConn) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || len(c.buf) == 0 {
		return c.err
	}
	_, err := c.Conn.Write(c.buf)
	c.release()
	if err != nil {
		c.err = err
	}
	return err
}

func (c *batchConn) release() {
	if c.buf != nil {
		batchBuffers.Put(c.buf[:0])
		c.buf = nil
	}
}

// batchDial returns a dial function that records the batchConn it makes.
func batchDial(out **batchConn) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		*out = &batchConn{Conn: c}
		return *out, nil
	}
}

// batchHijacker hands gorilla's Upgrader a batchConn when it hijacks the
// runner's connection.
type batchHijacker struct {
	http.ResponseWriter
	conn *batchConn
}

func (h *batchHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	h.conn = &batchConn{Conn: c}
	return h.conn, brw, nil
}
