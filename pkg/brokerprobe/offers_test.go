package brokerprobe

import (
	"strconv"
	"testing"
	"time"
)

func TestOpenOffersExpiry(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := newOpenOffers()
	o.add("a", t0.Add(5*time.Second))
	o.add("b", t0.Add(5*time.Second))
	o.add("launcher", time.Time{})
	o.add("a", t0.Add(8*time.Second)) // re-offered: the later expiry wins
	o.remove("b")
	o.add("b", t0.Add(6*time.Second)) // offered again after an accept
	o.prune(t0.Add(5 * time.Second))
	if o.len() != 3 {
		t.Fatalf("at 5 s: %v, want a, b and launcher open", o.expiry)
	}
	o.prune(t0.Add(6 * time.Second))
	if _, ok := o.expiry["b"]; ok || o.len() != 2 {
		t.Fatalf("at 6 s: %v, want a and launcher", o.expiry)
	}
	o.prune(t0.Add(time.Hour))
	if _, ok := o.expiry["launcher"]; !ok || o.len() != 1 {
		t.Fatalf("after an hour: %v, want only the launcher's offer", o.expiry)
	}
}

// Accepted offers leave stale heap entries; they are dropped in bulk, so
// the heap stays within a constant factor of the open offers.
func TestOpenOffersStaleEntriesBounded(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	o := newOpenOffers()
	for i := range 10_000 {
		id := strconv.Itoa(i)
		o.add(id, t0.Add(time.Hour))
		o.remove(id)
		if len(o.queue) > 2*o.len()+65 {
			t.Fatalf("after %d accepts the heap holds %d entries for %d offers", i+1, len(o.queue), o.len())
		}
	}
	o.add("x", t0.Add(time.Second))
	o.prune(t0.Add(time.Second))
	if o.len() != 0 {
		t.Fatalf("x did not expire: %v", o.expiry)
	}
	o.prune(t0.Add(2 * time.Hour))
	if len(o.queue) != 0 {
		t.Fatalf("%d stale entries left after their expiry", len(o.queue))
	}
}
