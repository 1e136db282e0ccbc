package lab

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// Bytes pass both ways unaltered, a half-close reaches the other end, and
// the forwarder stops with its context.
func TestForward(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	addr := testtool.ClosedAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Forward(ctx, addr, echo.Addr().String()) }()
	var c net.Conn
	for range 50 {
		if c, err = net.Dial("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, 1<<20)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	go func() { _, _ = c.Write(msg); _ = c.(*net.TCPConn).CloseWrite() }()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != string(msg) {
		t.Errorf("echoed %d bytes (%v), want the %d sent", len(got), err, len(msg))
	}
	c.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("forward ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("forward did not stop with its context")
	}
}
