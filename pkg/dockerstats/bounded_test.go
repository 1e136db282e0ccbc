package dockerstats

import (
	"sync"
	"testing"
	"time"
)

// forEachBounded runs every index once, never more than bound at a time.
func TestForEachBounded(t *testing.T) {
	var mu sync.Mutex
	running, peak := 0, 0
	seen := make([]int, 20)
	forEachBounded(len(seen), 3, func(i int) {
		mu.Lock()
		running++
		peak = max(peak, running)
		seen[i]++
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
	})
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	if peak > 3 || peak < 1 {
		t.Fatalf("peak %d running at once, want 1 to 3", peak)
	}
}
