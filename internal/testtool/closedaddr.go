package testtool

import (
	"net"
	"testing"
)

// ClosedAddr is a loopback host:port that nothing listens on: a request
// to it fails at once with "connection refused".
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
