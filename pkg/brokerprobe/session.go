package brokerprobe

import (
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// shutdownReason is the text of the 1001 close the probe sends both sides
// when it shuts down.
const shutdownReason = "probe: shutting down"

// session is one relayed connection: its two ends and its state.
type session struct {
	runner, broker end
	state          *connState
	goingAway      atomic.Bool // the probe sent both sides 1001: their closes are not relayed
	// upstream is the broker address the probe's connection ends at
	// (its remote IP and port); upstreamKnown is false when it is not an
	// IP and port.
	upstream      route.Endpoint
	upstreamKnown bool
}

// ends returns the side a pump of direction dir reads and the side it writes.
func (s *session) ends(dir int) (src, dst end) {
	if dir == toBroker {
		return s.runner, s.broker
	}
	return s.broker, s.runner
}

// tell closes e with the close that err calls for, unless the probe has
// already sent it 1001.
func (s *session) tell(e end, err error) {
	if !s.goingAway.Load() {
		sendClose(e, closePayload(err))
	}
}

// goAway sends both sides 1001 Going Away, once, each without waiting for
// the other.
func (s *session) goAway() {
	if !s.goingAway.CompareAndSwap(false, true) {
		return
	}
	msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, shutdownReason)
	var wg sync.WaitGroup
	for _, e := range []end{s.runner, s.broker} {
		wg.Go(func() { sendClose(e, msg) })
	}
	wg.Wait()
}

// cut closes both sockets, which ends a pump blocked on either.
func (s *session) cut() {
	s.runner.ws.Close()
	s.broker.ws.Close()
}
