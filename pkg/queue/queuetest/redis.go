// Package queuetest starts Redis for tests: a real redis-server on a free
// loopback port, with a temporary directory, stopped by PID at cleanup
// (Start), or an in-memory miniredis (StartMemory).
package queuetest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a running redis-server and a client connected to it.
type Redis struct {
	Addr   string
	Client *redis.Client
}

// Start runs redis-server for the test's lifetime, or skips the test when
// redis-server is not installed.
func Start(t testing.TB) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not on PATH (apt-get install redis-server)")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	r := &Redis{Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	r.Client = redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { r.Client.Close() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r.Client.Ping(context.Background()).Err() == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer within 10 s", r.Addr)
		}
	}
}

// Port is the server's port.
func (r *Redis) Port() int {
	_, p, _ := net.SplitHostPort(r.Addr)
	n, _ := strconv.Atoi(p)
	return n
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
