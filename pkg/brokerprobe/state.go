package brokerprobe

import (
	"strings"
	"sync"
	"time"
)

// Message types the state machine reacts to (n8n 2.23.2's task runner protocol).
const (
	msgInfo         = "runner:info"
	msgOffer        = "runner:taskoffer"
	msgAccepted     = "runner:taskaccepted"
	msgRejected     = "runner:taskrejected"
	msgDeferred     = "runner:taskdeferred"
	msgDone         = "runner:taskdone"
	msgError        = "runner:taskerror"
	msgOfferAccept  = "broker:taskofferaccept"
	msgCancel       = "broker:taskcancel"
	msgDrain        = "broker:drain"
	launcherPrefix  = "launcher-"
	burstGap        = 50 * time.Millisecond // offers of one runner tick arrive back to back
	maxTrackedItems = 1 << 16               // bounds memory against a hostile peer
	// acceptTimeoutReason is in the reason of the cancel the broker sends
	// when the runner misses N8N_RUNNERS_TASK_ACCEPT_TIMEOUT ("Acknowledgement
	// window elapsed").
	acceptTimeoutReason = "acknowledgement window"
	// maxAcceptTimeouts is n8n's MAX_CONSECUTIVE_ACCEPT_TIMEOUTS: at that many
	// in a row the broker reports the runner unresponsive and closes it.
	maxAcceptTimeouts = 3
	// maxValidFor caps an offer's validFor (ms): n8n's offers last about
	// 5 s, and a hostile value must not overflow a time.Duration.
	maxValidFor = int64(time.Hour / time.Millisecond)
)

// connState follows one runner↔broker connection. It is updated by the
// relay before a frame is forwarded, so a peer that has received a frame
// can rely on the state already reflecting it.
type connState struct {
	mu       sync.Mutex
	id       string
	opened   time.Time
	name     string
	types    []string
	launcher bool
	draining bool
	offers   openOffers
	pending  map[string]struct{}  // broker accepted an offer, runner has not answered
	running  map[string]time.Time // taskId → runner:taskaccepted time
	handoff  handoffs             // a freed slot's way to its next task
	late     cancelledTasks       // cancelled while pending: the runner's answer will come late
	timeouts int                  // consecutive accept timeouts, counted as the broker does
	peak     int                  // highest open offers + running seen
	burst    int                  // size of the first run of back-to-back offers
	burstEnd bool
	lastOff  time.Time
	heard    time.Time     // the runner's last message
	validity time.Duration // the longest validFor of its offers
	tally    *tally
}

func newConnState(id string, now time.Time, t *tally) *connState {
	return &connState{
		id:      truncate(id, maxNameLen),
		opened:  now,
		heard:   now,
		offers:  newOpenOffers(),
		pending: map[string]struct{}{},
		running: map[string]time.Time{},
		handoff: newHandoffs(),
		tally:   t,
	}
}

// apply feeds one parsed message travelling in direction dir.
func (c *connState) apply(f frame, dir int, now time.Time) {
	if dir == toBroker {
		c.fromRunner(f, now)
	} else {
		c.fromBroker(f)
	}
}

// fromRunner applies a runner → broker message.
func (c *connState) fromRunner(f frame, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heard = now
	if f.Type != msgOffer && c.burst > 0 {
		c.burstEnd = true
	}
	switch f.Type {
	case msgInfo:
		c.name, c.types = f.Name, f.Types
		c.launcher = c.launcher || strings.HasPrefix(f.Name, launcherPrefix)
	case msgOffer:
		c.offer(f, now)
	case msgAccepted:
		if c.answered(f.TaskID) {
			c.start(f.TaskID, now)
		}
	case msgRejected:
		c.handoff.drop(f.TaskID)
		if c.answered(f.TaskID) {
			c.tally.reject(f.Reason)
		}
	case msgDeferred:
		c.launcher = true
		if c.answered(f.TaskID) {
			c.tally.outcome(outcomeDeferred)
		}
	case msgDone:
		c.finish(f.TaskID, outcomeDone, now)
	case msgError:
		c.finish(f.TaskID, outcomeError, now)
	}
}

// fromBroker applies a broker → runner message.
func (c *connState) fromBroker(f frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch f.Type {
	case msgOfferAccept:
		// The runner drops the offer whether it accepts or rejects.
		c.offers.remove(f.OfferID)
		c.handoff.matched(f.OfferID, f.TaskID)
		if len(c.pending) < maxTrackedItems {
			c.pending[f.TaskID] = struct{}{}
		}
	case msgCancel:
		c.cancel(f)
	case msgDrain:
		if !c.draining {
			c.tally.drain()
		}
		c.draining = true
	}
}

// answered takes the runner's answer to a broker:taskofferaccept and
// reports whether it counts. An answer to a task the broker cancelled
// while waiting for it does not: the runner frees that slot on the cancel
// without a message. An answer in time resets the broker's count of
// consecutive accept timeouts.
func (c *connState) answered(taskID string) bool {
	if c.late.take(taskID) {
		return false
	}
	if _, ok := c.pending[taskID]; ok {
		delete(c.pending, taskID)
		c.timeouts = 0
	}
	return true
}

func (c *connState) start(taskID string, now time.Time) {
	if _, ok := c.running[taskID]; !ok && len(c.running) < maxTrackedItems {
		c.running[taskID] = now
	}
	if d, ok := c.handoff.started(taskID, now); ok {
		c.tally.handedOff(now, d)
	}
	c.notePeak(now)
}

// cancel applies broker:taskcancel. A cancel of a task the runner has not
// answered is the broker's accept timeout; the task is remembered so the
// runner's late answer is not counted. A running task cancelled with the
// accept-timeout reason is one whose answer crossed the cancel on the
// wire: it ends as an accept timeout too.
func (c *connState) cancel(f frame) {
	_, pending := c.pending[f.TaskID]
	_, running := c.running[f.TaskID]
	delete(c.pending, f.TaskID)
	delete(c.running, f.TaskID)
	c.handoff.drop(f.TaskID)
	switch {
	case running && !strings.Contains(strings.ToLower(f.Reason), acceptTimeoutReason):
		c.tally.outcome(outcomeCancelled)
	case running:
		c.acceptTimedOut()
	case pending:
		c.late.add(f.TaskID)
		c.acceptTimedOut()
	}
}

func (c *connState) acceptTimedOut() {
	c.tally.outcome(outcomeAcceptTimeout)
	c.timeouts++
}

// protocolClose counts the broker's 1002 close. n8n sends it, without a
// reason, both to a runner it reports unresponsive and to one that missed
// a heartbeat; it counts as runner-unresponsive when the probe saw the
// broker's threshold of consecutive accept timeouts, or the reason says so.
func (c *connState) protocolClose(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tally.unresponsiveClose(c.timeouts >= maxAcceptTimeouts || strings.Contains(strings.ToLower(reason), "unresponsive"))
}

func (c *connState) offer(f frame, now time.Time) {
	if f.HasValidFor && f.ValidFor < 0 {
		c.launcher = true // the launcher's single non-expiring offer
	}
	if !c.burstEnd {
		if c.burst == 0 || now.Sub(c.lastOff) <= burstGap {
			c.burst++
		} else {
			c.burstEnd = true
		}
	}
	c.lastOff = now
	c.offers.prune(now)
	if f.OfferID == "" || c.offers.len() >= maxTrackedItems {
		return
	}
	var expiry time.Time // zero: never expires
	if !f.HasValidFor || f.ValidFor >= 0 {
		valid := time.Duration(min(f.ValidFor, maxValidFor)) * time.Millisecond
		expiry = now.Add(valid)
		c.validity = max(c.validity, valid)
	}
	c.offers.add(f.OfferID, expiry)
	c.handoff.offered(f.OfferID, now, &c.offers)
	c.notePeak(now)
}

// finish ends a running task once; replies for unknown tasks are ignored
// so a late done after a cancel is not counted twice.
func (c *connState) finish(taskID string, o outcome, now time.Time) {
	start, ok := c.running[taskID]
	if !ok {
		return
	}
	delete(c.running, taskID)
	c.tally.finish(o, now.Sub(start), now)
	if c.offers.prune(now); c.offers.len() == 0 {
		c.handoff.freed(now)
	}
}

func (c *connState) notePeak(now time.Time) {
	c.offers.prune(now)
	c.peak = max(c.peak, c.offers.len()+len(c.running))
}

// close marks every running task lost: the connection dropped under it.
func (c *connState) close() (lost int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.running {
		c.tally.outcome(outcomeLost)
		delete(c.running, id)
		lost++
	}
	return lost
}

// ConnInfo describes one live connection through the probe.
type ConnInfo struct {
	ID, Name      string
	Types         []string
	Launcher      bool
	Draining      bool // the broker sent broker:drain
	Uptime        time.Duration
	Running       int
	Pending       int // accepted by the broker, not yet answered by the runner
	OffersOpen    int
	InferredLimit int
	Silent        time.Duration // since the runner's last message
	OfferValidity time.Duration // the longest validFor of its offers
}

// Unresponsive reports whether a runner holding work has sent nothing for
// longer than its offer validity plus the task time: a runner with a free
// slot renews its offers within the validity, and a runner whose slots
// are all busy ends a task within about the task time, so a live one is
// never silent that long. A frozen or paused process, or one whose event
// loop is blocked, is. A task much longer than the recent mean can also
// read as unresponsive while it runs.
func (c ConnInfo) Unresponsive(taskTime time.Duration) bool {
	return !c.Launcher && c.Running+c.Pending > 0 && c.Silent > c.OfferValidity+taskTime
}

func (c *connState) info(now time.Time) ConnInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offers.prune(now)
	return ConnInfo{
		ID:            c.id,
		Name:          c.name,
		Types:         append([]string(nil), c.types...),
		Launcher:      c.launcher,
		Draining:      c.draining,
		Uptime:        now.Sub(c.opened),
		Running:       len(c.running),
		Pending:       len(c.pending),
		OffersOpen:    c.offers.len(),
		InferredLimit: max(c.peak, c.burst),
		Silent:        now.Sub(c.heard),
		OfferValidity: c.validity,
	}
}
