package brokerprobe

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// shutdown runs Probe.Shutdown with a grace period and returns its result
// when it ends.
func shutdown(p *Probe, grace time.Duration) <-chan error {
	res := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		res <- p.Shutdown(ctx)
	}()
	return res
}

func awaitShutdown(t *testing.T, res <-chan error) error {
	t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
		return nil
	}
}

// On shutdown both sides of every relayed connection get 1001 Going Away
// from the probe; once they answer, Shutdown returns, the connections are
// gone and their running tasks are lost.
func TestShutdownSendsGoingAwayToBothSides(t *testing.T) {
	r := newRig(t)
	runner1, broker1 := r.connect(t, "r1")
	runner2, broker2 := r.connect(t, "r2")
	startTask(t, runner1, broker1, "t1")
	waitFor(t, "both connections tracked", func() bool { return len(r.probe.Connections()) == 2 })
	res := shutdown(r.probe, 10*time.Second)
	// gorilla's default close handler answers each close, as n8n's ws does.
	for _, c := range []*websocket.Conn{runner1, broker1, runner2, broker2} {
		expectClose(t, c, websocket.CloseGoingAway, shutdownReason)
	}
	if err := awaitShutdown(t, res); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if s := r.probe.Stats(); s.RunnerConnections != 0 || s.Running != 0 || s.TasksFailed != 1 {
		t.Fatalf("after shutdown: %+v", s)
	}
}

// Sides that never answer the 1001 hold Shutdown only until its context
// ends; then their sockets are cut and Shutdown returns the context's
// error.
func TestShutdownCutsSidesThatDoNotAnswer(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	waitFor(t, "connection tracked", func() bool { return len(r.probe.Connections()) == 1 })
	start := time.Now()
	err := awaitShutdown(t, shutdown(r.probe, 300*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("Shutdown returned %v after %v, want the deadline after 300ms", err, time.Since(start))
	}
	if n := len(r.probe.Connections()); n != 0 {
		t.Fatalf("%d connections after Shutdown", n)
	}
	for _, c := range []*websocket.Conn{runner, broker} {
		c.SetCloseHandler(func(int, string) error { return nil }) // the socket is gone: no answer
		expectClose(t, c, websocket.CloseGoingAway, shutdownReason)
		_ = c.NetConn().SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.NetConn().Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("after the close frame, read %v; want EOF, the socket cut", err)
		}
	}
}

// A connection relayed after Shutdown began gets 1001 on both sides at
// once and is not tracked.
func TestConnectionAfterShutdownGoesAway(t *testing.T) {
	r := newRig(t)
	if err := awaitShutdown(t, shutdown(r.probe, time.Second)); err != nil {
		t.Fatalf("Shutdown with no connection: %v", err)
	}
	runner, broker := r.connect(t, "late")
	expectClose(t, runner, websocket.CloseGoingAway, shutdownReason)
	expectClose(t, broker, websocket.CloseGoingAway, shutdownReason)
	if n := len(r.probe.Connections()); n != 0 {
		t.Fatalf("%d connections tracked after Shutdown", n)
	}
}
