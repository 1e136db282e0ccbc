package lab

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
)

// Forward relays every TCP connection accepted on listen to target, each
// direction copied as it comes, until ctx ends. The bridge-network lab
// runs it on the network's gateway so that containers reach the host's
// loopback Redis and PostgreSQL.
func Forward(ctx context.Context, listen, target string) error {
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); l.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() { defer wg.Done(); relay(ctx, c, target) }()
	}
}

// relay copies c to a new connection to target and back; either side
// closing its write half is passed on, and both end with ctx.
func relay(ctx context.Context, c net.Conn, target string) {
	defer c.Close()
	u, err := (&net.Dialer{}).DialContext(ctx, "tcp", target)
	if err != nil {
		return
	}
	defer u.Close()
	stop := context.AfterFunc(ctx, func() { c.Close(); u.Close() })
	defer stop()
	done := make(chan struct{})
	go func() { pipe(u, c); close(done) }()
	pipe(c, u)
	<-done
}

// pipe copies src to dst, then closes dst's write half.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if tc, ok := dst.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}
