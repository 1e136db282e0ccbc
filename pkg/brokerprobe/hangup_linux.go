//go:build linux

package brokerprobe

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollRDHUP is Linux's POLLRDHUP from <poll.h>; x/sys/unix does not name it.
const pollRDHUP = 0x2000

// hungUp reports whether the peer of c has shut down its sending side or
// reset the connection. It reads nothing: data may still be queued before
// the end.
func hungUp(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	hup := false
	_ = raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: pollRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			hup = fds[0].Revents&(pollRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return hup
}
