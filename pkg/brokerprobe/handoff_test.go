package brokerprobe

import (
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// handoffRig drives one runner connection by message type.
type handoffRig struct {
	t              *testing.T
	r              *rig
	runner, broker *websocket.Conn
}

func newHandoffRig(t *testing.T) *handoffRig {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	return &handoffRig{t: t, r: r, runner: runner, broker: broker}
}

func (h *handoffRig) offer(id string) {
	relayText(h.t, h.runner, h.broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"`+id+`","validFor":5000}`)
}

func (h *handoffRig) match(offer, task string) {
	relayText(h.t, h.broker, h.runner, `{"type":"broker:taskofferaccept","taskId":"`+task+`","offerId":"`+offer+`"}`)
}

func (h *handoffRig) accept(task string) {
	relayText(h.t, h.runner, h.broker, `{"type":"runner:taskaccepted","taskId":"`+task+`"}`)
}

// refill runs task from offer to accept, ends it, and has the runner
// offer the slot it freed as next.
func (h *handoffRig) refill(offer, task, next string) {
	h.offer(offer)
	h.match(offer, task)
	h.accept(task)
	h.done(task)
	h.offer(next)
}

// handOff ends task, offers the slot it freed as next, and after d has
// the broker match that offer to nextTask, which the runner accepts.
func (h *handoffRig) handOff(task, next, nextTask string, d time.Duration) {
	h.done(task)
	h.offer(next)
	h.wait(d)
	h.match(next, nextTask)
	h.accept(nextTask)
}

func (h *handoffRig) done(task string) {
	relayText(h.t, h.runner, h.broker, `{"type":"runner:taskdone","taskId":"`+task+`","data":{}}`)
}

// wait advances the probe's clock.
func (h *handoffRig) wait(d time.Duration) { h.r.clock.Advance(d) }

func (h *handoffRig) want(mean time.Duration, count int) {
	h.t.Helper()
	s := h.r.probe.Stats()
	if s.RecentHandoffMean != mean || s.RecentHandoffCount != count {
		h.t.Errorf("hand-off mean %v over %d, want %v over %d", s.RecentHandoffMean, s.RecentHandoffCount, mean, count)
	}
}

// A saturated runner: each done is followed by the offer of the slot it
// freed, which the broker matches to a waiting task. The hand-off runs
// from the done to that task's accept; the task time does not hold it.
func TestHandoffFromDoneToTheNextAccept(t *testing.T) {
	h := newHandoffRig(t)
	h.offer("o1")
	h.match("o1", "t1")
	h.accept("t1")
	h.want(0, 0) // the first offer freed no slot
	h.wait(time.Second)
	h.done("t1")
	h.offer("o2")
	h.wait(20 * time.Millisecond)
	h.match("o2", "t2")
	h.wait(5 * time.Millisecond)
	h.accept("t2")
	h.want(25*time.Millisecond, 1)
	if s := h.r.probe.Stats(); s.RecentTaskMean != time.Second {
		t.Errorf("task mean %v, want 1s: the hand-off is not task time", s.RecentTaskMean)
	}
	h.wait(time.Second)
	h.handOff("t2", "o3", "t3", 35*time.Millisecond)
	h.want(30*time.Millisecond, 2)
}

// An offer that did not follow a done within burstGap (the runner's
// renewal of an expired offer) frees no slot, and an offer the broker
// never matches leaves nothing behind.
func TestHandoffOnlyForTheFreedSlotsOffer(t *testing.T) {
	h := newHandoffRig(t)
	h.offer("o1")
	h.match("o1", "t1")
	h.accept("t1")
	h.wait(time.Second)
	h.done("t1")
	h.wait(burstGap + time.Millisecond)
	h.offer("late")
	h.match("late", "t2")
	h.accept("t2")
	h.want(0, 0)

	// A refill offer that expires unmatched, then a task from another offer.
	h.wait(time.Second)
	h.done("t2")
	h.offer("refill")
	h.wait(6 * time.Second)
	h.offer("renewed")
	h.match("renewed", "t3")
	h.accept("t3")
	h.want(0, 0)
}

// A task the runner rejects or the broker cancels before the accept
// records no hand-off, and a later accept of its id does not either.
func TestHandoffDroppedWithItsTask(t *testing.T) {
	h := newHandoffRig(t)
	h.refill("o1", "t1", "o2")
	h.match("o2", "t2")
	relayText(t, h.runner, h.broker, `{"type":"runner:taskrejected","taskId":"t2","reason":"No open task slots"}`)
	h.accept("t2")
	h.want(0, 0)
}

// The hand-off histogram reaches a reader of the probe's /metrics.
func TestHandoffDecodes(t *testing.T) {
	h := newHandoffRig(t)
	h.refill("o1", "t1", "o2")
	h.wait(40 * time.Millisecond)
	h.match("o2", "t2")
	h.accept("t2")
	got := decodeText(t, metricsText(t, h.r.probe))
	if len(got) != 1 || got[0].HandoffCount != 1 || got[0].HandoffSum != 0.04 {
		t.Fatalf("decoded %+v, want one 40 ms hand-off", got)
	}
}

// A slot freed while the runner still had an open offer is not timed:
// the runner had an idle slot, and the refill waits for a request, not
// for the broker. Once every slot is busy again, the next done is.
func TestHandoffOnlyFromAFullRunner(t *testing.T) {
	h := newHandoffRig(t)
	h.offer("idle")
	h.refill("o1", "t1", "o2")
	h.wait(400 * time.Millisecond)
	h.match("o2", "t2")
	h.accept("t2")
	h.want(0, 0)

	h.match("idle", "t3")
	h.accept("t3")
	h.wait(time.Second)
	h.handOff("t2", "o3", "t4", 10*time.Millisecond)
	h.want(10*time.Millisecond, 1)
}
