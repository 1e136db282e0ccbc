package dockerstats

import (
	"sync/atomic"
	"testing"
	"time"
)

// forEachBounded runs every index once, never more than bound at a time.
func TestForEachBounded(t *testing.T) {
	var running, peak atomic.Int32
	seen := make([]int32, 20)
	forEachBounded(len(seen), 3, func(i int) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		atomic.AddInt32(&seen[i], 1)
		running.Add(-1)
	})
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	if p := peak.Load(); p > 3 || p < 1 {
		t.Fatalf("peak %d running at once, want 1 to 3", p)
	}
}
