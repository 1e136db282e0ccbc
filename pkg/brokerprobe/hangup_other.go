//go:build !linux

package brokerprobe

import "net"

// hungUp is not detected here; the relay's stall and idle deadlines still
// end a connection whose peer went away.
func hungUp(net.Conn) bool { return false }
