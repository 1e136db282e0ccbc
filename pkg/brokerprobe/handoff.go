package brokerprobe

import "time"

// handoffs follows a slot from the task that freed it to the task that
// fills it next. n8n's runner offers the freed slot in the same tick as
// its runner:taskdone; the broker matches offers oldest first, so a
// runner with every slot busy has no other open offer, and its refill
// offer is the one the broker accepts for the next waiting task. The
// hand-off, runner:taskdone to the next runner:taskaccepted, then holds
// the slot without being task time: the broker's turn to match the offer
// and the runner's to accept. A slot freed while the runner had an open
// offer is not timed: that runner had an idle slot, and its refill waits
// for a request, not for the broker. Even from a full runner the span
// holds the wait for a request when none was waiting, so the exporter
// adds hand-offs to the slot's hold only while tasks waited for the
// runner.
type handoffs struct {
	freedAt []time.Time          // dones whose refill offer has not come, oldest first
	offers  map[string]time.Time // refill offerId → its slot's done
	tasks   map[string]time.Time // taskId the broker matched to a refill offer → that done
}

// maxFreed bounds the dones waiting for their offer: a runner sends it
// right after the done, so only a runner that stopped offering leaves
// more than a few.
const maxFreed = 64

func newHandoffs() handoffs {
	return handoffs{offers: map[string]time.Time{}, tasks: map[string]time.Time{}}
}

// freed notes a slot freed at now by a task's end on a full runner.
func (h *handoffs) freed(now time.Time) {
	if len(h.freedAt) == maxFreed {
		h.freedAt = h.freedAt[1:]
	}
	h.freedAt = append(h.freedAt, now)
}

// offered ties an offer to the oldest freed slot when it came within
// burstGap of that slot's done; older dones were not re-offered (the
// runner was draining or its offers were open) and are dropped. Refill
// offers whose offer closed unmatched (expired) are forgotten once they
// outnumber the open offers.
func (h *handoffs) offered(offerID string, now time.Time, open *openOffers) {
	for len(h.freedAt) > 0 && now.Sub(h.freedAt[0]) > burstGap {
		h.freedAt = h.freedAt[1:]
	}
	if len(h.freedAt) == 0 {
		return
	}
	if len(h.offers) > open.len() {
		for id := range h.offers {
			if _, ok := open.expiry[id]; !ok {
				delete(h.offers, id)
			}
		}
	}
	if len(h.offers) < maxTrackedItems {
		h.offers[offerID] = h.freedAt[0]
	}
	h.freedAt = h.freedAt[1:]
}

// matched follows a refill offer the broker accepted to its task.
func (h *handoffs) matched(offerID, taskID string) {
	at, ok := h.offers[offerID]
	if !ok {
		return
	}
	delete(h.offers, offerID)
	if len(h.tasks) < maxTrackedItems {
		h.tasks[taskID] = at
	}
}

// started returns the hand-off of a task the runner accepted at now, if
// a refill offer brought it.
func (h *handoffs) started(taskID string, now time.Time) (time.Duration, bool) {
	at, ok := h.tasks[taskID]
	if !ok {
		return 0, false
	}
	delete(h.tasks, taskID)
	return max(0, now.Sub(at)), true
}

// drop forgets a task that will not start: rejected or cancelled.
func (h *handoffs) drop(taskID string) { delete(h.tasks, taskID) }
