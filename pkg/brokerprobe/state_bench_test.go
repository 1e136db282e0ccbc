package brokerprobe

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// BenchmarkOpenOffers measures one offer and one broker accept on a
// connection that holds n open offers, so the count stays at n. Expired
// offers are pruned on the way; the cost per offer must not grow with n.
//
//	go test -run '^$' -bench OpenOffers ./pkg/brokerprobe/
func BenchmarkOpenOffers(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("open=%d", n), func(b *testing.B) {
			now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			c := newConnState("bench", now, newTally("bench", 0))
			ids := make([]string, n+b.N)
			for i := range ids {
				ids[i] = "o" + strconv.Itoa(i)
			}
			for i := range n {
				c.fromRunner(frame{Type: msgOffer, OfferID: ids[i], ValidFor: 3_600_000, HasValidFor: true}, now)
			}
			b.ResetTimer()
			for i := range b.N {
				now = now.Add(time.Microsecond)
				c.fromRunner(frame{Type: msgOffer, OfferID: ids[n+i], ValidFor: 3_600_000, HasValidFor: true}, now)
				c.fromBroker(frame{Type: msgOfferAccept, OfferID: ids[i], TaskID: "t"})
			}
			b.StopTimer()
			if got := c.info(now).OffersOpen; got != n {
				b.Fatalf("%d offers open, want %d", got, n)
			}
		})
	}
}
