package brokerprobe

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const (
	readBuffer   = 32 << 10  // held by every connection
	writeBuffer  = 128 << 10 // pooled: held only while a message is written
	dialTimeout  = 10 * time.Second
	controlWait  = 5 * time.Second // longest a forwarded ping, pong or close waits for the writer
	closeWait    = 5 * time.Second // grace from one side's end until both sockets are cut
	lostReason   = "probe: peer connection lost"
	maxErrorBody = 64 << 10
)

// writeBuffers is shared by every connection: a buffer is held only while
// a message is being written, so idle runners cost no write buffer.
var writeBuffers = &sync.Pool{}

// newWebsocketEnds builds the two websocket ends. Compression stays off on
// both: the probe streams bytes, and n8n's broker does not enable it.
func newWebsocketEnds() (websocket.Dialer, websocket.Upgrader) {
	d := websocket.Dialer{
		HandshakeTimeout: dialTimeout,
		ReadBufferSize:   readBuffer,
		WriteBufferSize:  writeBuffer,
		WriteBufferPool:  writeBuffers,
	}
	u := websocket.Upgrader{
		HandshakeTimeout: dialTimeout,
		ReadBufferSize:   readBuffer,
		WriteBufferSize:  writeBuffer,
		WriteBufferPool:  writeBuffers,
		// Origin policy is the broker's business; the probe only relays.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return d, u
}

// serveRunner dials the broker first, so a refused handshake (bad grant
// token, 403) reaches the runner with its status and body unchanged, and
// only then upgrades the runner's request.
func (p *Probe) serveRunner(w http.ResponseWriter, r *http.Request) {
	target := *p.upstream
	target.Scheme = map[string]string{"http": "ws", "https": "wss"}[p.upstream.Scheme]
	target.Path, target.RawPath, target.RawQuery = r.URL.Path, r.URL.RawPath, r.URL.RawQuery
	dialer := p.dialer
	dialer.Subprotocols = websocket.Subprotocols(r)
	var brokerBatch *batchConn
	dialer.NetDialContext = batchDial(&brokerBatch)
	broker, resp, err := dialer.DialContext(r.Context(), target.String(), forwardHeaders(r.Header))
	if err != nil {
		p.refuse(w, resp, err)
		return
	}
	respHeader := http.Header{}
	if sp := broker.Subprotocol(); sp != "" {
		respHeader.Set("Sec-Websocket-Protocol", sp)
	}
	hj := &batchHijacker{ResponseWriter: w}
	runner, err := p.upgrader.Upgrade(hj, r, respHeader)
	if err != nil { // Upgrade has already answered the runner
		sendClose(end{broker, brokerBatch}, websocket.FormatCloseMessage(websocket.CloseInternalServerErr, lostReason))
		broker.Close()
		return
	}
	p.relay(end{runner, hj.conn}, end{broker, brokerBatch}, r.URL.Query().Get("id"))
}

// refuse answers the runner when the broker did not upgrade.
func (p *Probe) refuse(w http.ResponseWriter, resp *http.Response, err error) {
	if resp == nil {
		p.log.Warn("broker websocket unreachable", "err", err)
		http.Error(w, "probe: task broker unreachable", http.StatusBadGateway)
		return
	}
	p.log.Info("broker refused runner websocket", "status", resp.StatusCode)
	for k, vs := range endToEnd(resp.Header) {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, maxErrorBody))
}

// forwardHeaders copies the runner's end-to-end request headers
// (Authorization included) minus those the dialer sets itself.
func forwardHeaders(in http.Header) http.Header {
	out := endToEnd(in)
	for k := range out {
		if strings.HasPrefix(k, "Sec-Websocket-") {
			delete(out, k)
		}
	}
	return out
}

// endToEnd copies h without its hop-by-hop headers: the standard ones and
// every header its Connection header names. Keys come out canonical.
func endToEnd(h http.Header) http.Header {
	named := map[string]bool{}
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			named[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	out := http.Header{}
	for k, vs := range h {
		if ck := http.CanonicalHeaderKey(k); !isHopHeader(ck) && !named[ck] {
			out[ck] = vs
		}
	}
	return out
}

func isHopHeader(k string) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Connection", "Upgrade", "Keep-Alive", "Proxy-Connection", "Te", "Trailer",
		"Transfer-Encoding", "Content-Length", "Host":
		return true
	}
	return false
}

// end is one side of the relay: the websocket and the batching
// connection under it.
type end struct {
	ws    *websocket.Conn
	batch *batchConn
}

// control writes a control frame and sends it at once.
func (e end) control(messageType int, data []byte) {
	_ = e.ws.WriteControl(messageType, data, time.Now().Add(controlWait))
	_ = e.batch.Flush()
}

func (e end) close() {
	_ = e.batch.flushWithin(controlWait)
	e.ws.Close()
}

// deadlines bound every wait of a relay.
type deadlines struct {
	idle  time.Duration // longest a side may send no byte
	stall time.Duration // longest a socket write may go without progress
	grace time.Duration // from one side's end until both sockets are cut
}

// relayDeadlines follows the broker's heartbeat: it pings every interval
// and the runner pongs, both relayed, so a live side sends a byte and
// takes one at least once per interval. Two intervals without is a missed
// pong, which the broker also treats as a dead runner.
func relayDeadlines(heartbeat time.Duration) deadlines {
	return deadlines{idle: 2 * heartbeat, stall: 2 * heartbeat, grace: closeWait}
}

// relay runs the two pumps until both sides are closed. The grace period
// starts as soon as either side ends, even while the other pump is blocked
// writing to a peer that stopped reading.
func (p *Probe) relay(runner, broker end, id string) {
	s := &session{runner: runner, broker: broker, state: newConnState(id, p.now(), p.tally)}
	s.upstream, s.upstreamKnown = peerEndpoint(broker.ws.RemoteAddr())
	state := s.state
	pair(runner.batch, broker.batch, p.deadlines.idle, p.deadlines.stall)
	forwardControl(runner, broker)
	forwardControl(broker, runner)
	if !p.track(s) { // shutting down
		s.goAway()
		runner.close()
		broker.close()
		return
	}
	p.log.Info("runner connected", "id", state.id)

	ended := make(chan pumpEnd, 2) // a pump saw its side end, before it relays the close
	done := make(chan struct{}, 2)
	go func() { p.pump(s, toBroker, ended); done <- struct{}{} }()
	go func() { p.pump(s, toRunner, ended); done <- struct{}{} }()
	first := <-ended
	noteClose(state, first)
	// The other side has the grace period to answer the forwarded close;
	// after it both sockets are cut, which frees a pump blocked in a read,
	// a write or a flush.
	timer := time.NewTimer(p.deadlines.grace)
	for left := 2; left > 0; {
		select {
		case <-done:
			left--
		case <-timer.C:
			runner.ws.Close()
			broker.ws.Close()
		}
	}
	timer.Stop()
	runner.close()
	broker.close()

	lost := state.close()
	info := state.info(p.now())
	p.log.Info("runner disconnected", "id", info.ID, "name", info.Name, "launcher", info.Launcher,
		"draining", info.Draining, "uptime", info.Uptime.Round(time.Millisecond), "lost_tasks", lost,
		"close", closeText(first.err))
	p.untrack(s) // last, so whoever sees the connection gone also sees the log
}

// forwardControl makes pings and pongs from one side go to the other
// instead of being answered here, so the broker's heartbeat still tests
// the runner. A close from one side is answered by the other side's own
// close frame, relayed by the pump, not by the probe.
func forwardControl(from, to end) {
	from.ws.SetPingHandler(func(data string) error {
		to.control(websocket.PingMessage, []byte(data))
		return nil
	})
	from.ws.SetPongHandler(func(data string) error {
		to.control(websocket.PongMessage, []byte(data))
		return nil
	})
	from.ws.SetCloseHandler(func(int, string) error { return nil })
}

// pump relays messages in direction dir until the side it reads ends,
// then closes the other side with that side's close code, or 1011 when it
// failed; when the other side cannot be written, it closes the side it
// reads with 1011. After the probe's 1001 it relays no close. It reports
// the error that ended it on ended first, so the relay's grace period
// starts even if the close blocks.
func (p *Probe) pump(s *session, dir int, ended chan<- pumpEnd) {
	src, dst := s.ends(dir)
	prefix := make([]byte, prefixLimit)
	for {
		mt, r, err := src.ws.NextReader()
		if err != nil {
			ended <- pumpEnd{dir, err}
			s.tell(dst, err)
			return
		}
		err = p.forward(dst.ws, mt, r, prefix, s.state, dir)
		var rerr readError
		switch {
		case errors.As(err, &rerr):
			ended <- pumpEnd{dir, rerr.error}
			s.tell(dst, rerr.error)
			return
		case err != nil:
			ended <- pumpEnd{dir, err}
			s.tell(src, err)
			return
		}
	}
}

// pumpEnd is why the pump of direction dir stopped.
type pumpEnd struct {
	dir int
	err error
}

// readError marks a failure on the side being read.
type readError struct{ error }

// forward streams one message. The first prefixLimit bytes are read and
// tapped before anything is written, so the state is updated before the
// peer can react to the frame; the rest is copied through gorilla's
// fixed-size write buffer, never held whole.
func (p *Probe) forward(dst *websocket.Conn, mt int, r io.Reader, prefix []byte, state *connState, dir int) error {
	n, err := io.ReadFull(r, prefix)
	truncated := err == nil // exactly prefixLimit read: the frame may go on
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return readError{err}
	}
	p.tap(prefix[:n], truncated, state, dir)
	w, err := dst.NextWriter(mt)
	if err != nil {
		return err
	}
	if _, err := w.Write(prefix[:n]); err != nil {
		return err
	}
	if truncated {
		src := &errReader{r: r}
		if _, err := io.Copy(w, src); err != nil {
			if src.err != nil {
				return readError{src.err} // leave the message unfinished: never deliver a cut frame as whole
			}
			return err
		}
	}
	return w.Close()
}

// errReader remembers a read error so it can be told from a write error.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// tap counts the frame and feeds its parsed prefix to the state machine.
func (p *Probe) tap(prefix []byte, truncated bool, state *connState, dir int) {
	p.tally.frames[dir].Inc()
	f, err := parsePrefix(prefix, truncated)
	if err != nil {
		p.tally.parseErrors.Inc()
		return
	}
	state.apply(f, dir, p.now())
}

// noteClose hands the state a 1002 close the broker sent first, as n8n
// drops a runner unresponsive or for a missed heartbeat; the broker's
// answer to the runner's own close is not counted.
func noteClose(state *connState, first pumpEnd) {
	var ce *websocket.CloseError
	if first.dir == toRunner && errors.As(first.err, &ce) && ce.Code == websocket.CloseProtocolError {
		state.protocolClose(ce.Text)
	}
}

// closePayload mirrors a received close; a failure or a code that may not
// be sent (1006, 1015) becomes 1011.
func closePayload(err error) []byte {
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure && ce.Code != websocket.CloseTLSHandshake {
		return websocket.FormatCloseMessage(ce.Code, ce.Text)
	}
	return websocket.FormatCloseMessage(websocket.CloseInternalServerErr, lostReason)
}

func sendClose(e end, payload []byte) {
	e.control(websocket.CloseMessage, payload)
}

func closeText(err error) string {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Error()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}
