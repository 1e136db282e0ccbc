package loadgen

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// fakeNet is an in-memory network for tests that run in a synctest
// bubble, where the clock is fake and only moves when every goroutine
// waits on it: a real http.Server serves on it, and a real http.Client
// dials it through net.Pipe. A loopback socket cannot be used there: a
// goroutine blocked reading one is not durably blocked, so the fake
// clock would never move. Everything above the connection (HTTP, the
// engine, timeouts) is the real code.
type fakeNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func (n *fakeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

func (n *fakeNet) Close() error {
	n.once.Do(func() { close(n.closed) })
	return nil
}

func (n *fakeNet) Addr() net.Addr { return fakeAddr{} }

func (n *fakeNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case n.conns <- srv:
		return cli, nil
	case <-n.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type fakeAddr struct{}

func (fakeAddr) Network() string { return "pipe" }
func (fakeAddr) String() string  { return "fake" }

// fakeTarget serves h on a fake network, inside the calling synctest
// bubble, and returns okTarget's checks against the given paths with a
// client that dials it and gives up after timeout. Server and client end
// with the test.
func fakeTarget(t *testing.T, h http.Handler, timeout time.Duration, paths ...string) *Target {
	t.Helper()
	n := &fakeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(n) }()
	tr := &http.Transport{DialContext: n.dial, DisableCompression: true}
	t.Cleanup(func() {
		// Handlers still sleeping when the sweep ended finish first: the
		// fake clock stops once the test's goroutine returns, and a
		// handler asleep then would never wake.
		time.Sleep(time.Hour)
		srv.Close()
		tr.CloseIdleConnections()
	})
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	urls := make([]string, len(paths))
	for i, p := range paths {
		urls[i] = "http://fake" + p
	}
	tgt := okTarget(urls...)
	tgt.Client = &http.Client{Transport: tr, Timeout: timeout}
	return tgt
}
