package brokerprobe

import (
	"container/heap"
	"time"
)

// openOffers holds a runner's open offers, offerId → expiry; a zero expiry
// never expires (validFor -1). The expiring ones are also kept in a
// min-heap of expiries, so pruning pops only the offers that expired
// instead of scanning every open offer.
type openOffers struct {
	expiry map[string]time.Time
	queue  expiryHeap // may hold stale entries: accepted or re-offered ids
}

func newOpenOffers() openOffers {
	return openOffers{expiry: map[string]time.Time{}}
}

func (o *openOffers) len() int { return len(o.expiry) }

// add opens or renews an offer.
func (o *openOffers) add(id string, exp time.Time) {
	o.expiry[id] = exp
	if !exp.IsZero() {
		heap.Push(&o.queue, expiryEntry{at: exp, id: id})
	}
}

// remove closes an offer; its heap entry goes stale and is dropped when
// it comes up, or when stale entries outnumber open offers.
func (o *openOffers) remove(id string) {
	delete(o.expiry, id)
	if len(o.queue) > 2*len(o.expiry)+64 {
		o.rebuild()
	}
}

// prune closes the offers whose expiry is at or before now.
func (o *openOffers) prune(now time.Time) {
	for len(o.queue) > 0 && !now.Before(o.queue[0].at) {
		e := heap.Pop(&o.queue).(expiryEntry)
		if exp, ok := o.expiry[e.id]; ok && exp.Equal(e.at) {
			delete(o.expiry, e.id)
		}
	}
}

// rebuild drops the stale heap entries.
func (o *openOffers) rebuild() {
	o.queue = o.queue[:0]
	for id, exp := range o.expiry {
		if !exp.IsZero() {
			o.queue = append(o.queue, expiryEntry{at: exp, id: id})
		}
	}
	heap.Init(&o.queue)
}

type expiryEntry struct {
	at time.Time
	id string
}

// expiryHeap is a container/heap of entries, earliest expiry first.
type expiryHeap []expiryEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
