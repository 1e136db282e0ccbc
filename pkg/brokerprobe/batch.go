package brokerprobe

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// batchLimit bounds the bytes held back per connection; larger writes go
// straight through.
const batchLimit = 16 << 10

// batchBuffers holds *[]byte: a pointer goes into the pool without an
// allocation.
var batchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, batchLimit); return &b }}

// batchConn coalesces the relay's writes to one peer. The pump that reads
// the other side flushes it just before it would block waiting for input,
// so a backlog of small messages leaves in one write while a lone message
// still leaves at once: no timer, no added latency. Buffering starts only
// when the relay does, so handshakes pass straight through.
//
// Once relaying, it also holds the deadlines: a read may wait idle for a
// byte, and a write fails after stall without progress, or sooner once it
// makes none while the other side has hung up. Both are measured from the
// last byte moved, so a long frame that keeps moving is never cut. The
// socket's deadlines are moved only when they come near, so a busy
// connection does not pay for a deadline call per read or write.
type batchConn struct {
	net.Conn
	peer        atomic.Pointer[batchConn] // flushed before this conn blocks in Read
	idle, stall time.Duration             // set by pair before peer, both positive
	readArmed   time.Time                 // the socket's read deadline; only the reading pump uses it

	mu         sync.Mutex
	on         bool
	buf        []byte
	err        error
	writeArmed time.Time // the socket's write deadline
}

// pair starts batching and deadlines on both ends of a relay.
func pair(a, b *batchConn, idle, stall time.Duration) {
	for _, c := range []*batchConn{a, b} {
		c.mu.Lock()
		c.on, c.idle, c.stall = true, idle, stall
		c.mu.Unlock()
	}
	a.peer.Store(b)
	b.peer.Store(a)
}

func (c *batchConn) Read(p []byte) (int, error) {
	if peer := c.peer.Load(); peer != nil {
		_ = peer.Flush() // a failure resurfaces on the peer's next write
		c.armRead(time.Now())
	}
	return c.Conn.Read(p)
}

// armRead keeps the read deadline between idle and idle·9/8 ahead of now,
// moving it only once less than idle is left.
func (c *batchConn) armRead(now time.Time) {
	if c.readArmed.Sub(now) < c.idle {
		c.readArmed = now.Add(c.idle + c.idle/8)
		_ = c.SetReadDeadline(c.readArmed)
	}
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
			c.buf = *batchBuffers.Get().(*[]byte)
		}
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	// Too big to hold: send what is held and p in one writev.
	if err := c.send(net.Buffers{c.buf, p}, c.stall); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SetWriteDeadline is ignored once relaying: send sets the socket's
// deadline for each write it makes, and gorilla's own deadlines (none for
// data, controlWait for control frames) would cut across a write another
// goroutine has in progress.
func (c *batchConn) SetWriteDeadline(t time.Time) error {
	if c.peer.Load() != nil {
		return nil
	}
	return c.Conn.SetWriteDeadline(t)
}

// Flush sends what is held.
func (c *batchConn) Flush() error { return c.flushWithin(c.stall) }

// flushWithin sends what is held, failing if it does not go out within d.
func (c *batchConn) flushWithin(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || len(c.buf) == 0 {
		return c.err
	}
	return c.send(net.Buffers{c.buf}, d)
}

// writeSlice is how often a blocked write checks whether the other side,
// which feeds it, has hung up.
const writeSlice = 250 * time.Millisecond

// errPeerHungUp ends a write that cannot progress while the side feeding
// it has gone.
var errPeerHungUp = errors.New("write stalled and the other side hung up")

// send writes bufs and releases the batch. It fails once stall (> 0)
// passes with no byte written, or once a timeout passes with none written
// while the other side has hung up. A failure sticks, since part of a
// frame may have gone out.
func (c *batchConn) send(bufs net.Buffers, stall time.Duration) error {
	defer c.release()
	now := time.Now()
	progress := now
	for {
		c.armWrite(now, min(writeSlice, stall))
		n, err := bufs.WriteTo(c.Conn)
		if err == nil {
			return nil
		}
		now = time.Now()
		if n > 0 {
			progress = now
		}
		switch {
		case !errors.Is(err, os.ErrDeadlineExceeded) || now.Sub(progress) >= stall:
		case n == 0 && c.peerHungUp():
			err = errPeerHungUp
		default:
			continue
		}
		c.err = err
		return err
	}
}

// armWrite keeps the write deadline at least half of slice ahead of now,
// moving it slice ahead only when it is not. A write may then time out
// early; send checks and goes on.
func (c *batchConn) armWrite(now time.Time, slice time.Duration) {
	if c.writeArmed.Sub(now) < slice/2 {
		c.writeArmed = now.Add(slice)
		_ = c.Conn.SetWriteDeadline(c.writeArmed)
	}
}

func (c *batchConn) peerHungUp() bool {
	peer := c.peer.Load()
	return peer != nil && hungUp(peer.Conn)
}

func (c *batchConn) release() {
	if c.buf != nil {
		b := c.buf[:0]
		batchBuffers.Put(&b)
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
