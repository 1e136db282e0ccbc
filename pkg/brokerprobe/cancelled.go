package brokerprobe

// maxCancelled bounds the tasks a connection remembers as cancelled before
// the runner answered. A runner answers each broker:taskofferaccept once,
// and has at most its concurrency limit of them open, so the oldest entry
// is long answered when it is forgotten.
const maxCancelled = 4096

// cancelledTasks remembers, per connection, the tasks the broker cancelled
// while they waited for the runner's answer, so that answer, arriving
// late, is recognised. It holds at most maxCancelled ids and forgets the
// oldest first; it goes with its connection.
type cancelledTasks struct {
	ring []string       // ids in the order added; "" for a slot taken back
	next int            // slot the next id goes to once ring is full
	slot map[string]int // id → its slot in ring
}

// add remembers id; an id already remembered keeps its slot, and the
// empty id, which names no task, is not kept.
func (c *cancelledTasks) add(id string) {
	if _, ok := c.slot[id]; ok || id == "" {
		return
	}
	if c.slot == nil {
		c.slot = map[string]int{}
	}
	if len(c.ring) < maxCancelled {
		c.slot[id] = len(c.ring)
		c.ring = append(c.ring, id)
		return
	}
	if old := c.ring[c.next]; old != "" {
		delete(c.slot, old)
	}
	c.ring[c.next], c.slot[id] = id, c.next
	c.next = (c.next + 1) % maxCancelled
}

// take reports whether id is remembered and forgets it.
func (c *cancelledTasks) take(id string) bool {
	i, ok := c.slot[id]
	if ok {
		delete(c.slot, id)
		c.ring[i] = ""
	}
	return ok
}

func (c *cancelledTasks) len() int { return len(c.slot) }
