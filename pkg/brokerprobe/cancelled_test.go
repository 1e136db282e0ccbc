package brokerprobe

import (
	"strconv"
	"testing"
)

// The memory of cancelled tasks holds at most maxCancelled ids, forgets
// the oldest first, and frees an id once its late answer is taken.
func TestCancelledTasksBounded(t *testing.T) {
	var c cancelledTasks
	for i := range 3 * maxCancelled {
		c.add("t" + strconv.Itoa(i))
		if c.len() > maxCancelled || len(c.ring) > maxCancelled {
			t.Fatalf("after %d adds: %d ids in %d slots, cap %d", i+1, c.len(), len(c.ring), maxCancelled)
		}
	}
	if c.take("t0") || c.take(strconv.Itoa(2*maxCancelled-1)) {
		t.Fatal("an id older than the last maxCancelled is still remembered")
	}
	newest := "t" + strconv.Itoa(3*maxCancelled-1)
	if !c.take(newest) || c.take(newest) {
		t.Fatal("the newest id is not taken exactly once")
	}
	oldestKept := "t" + strconv.Itoa(2*maxCancelled)
	c.add("fresh") // reuses the slot of the oldest
	if c.take(oldestKept) || !c.take("fresh") {
		t.Fatal("adding past the cap did not forget the oldest id")
	}
	c.add("")
	if c.take("") {
		t.Fatal("the empty id was remembered")
	}
}
