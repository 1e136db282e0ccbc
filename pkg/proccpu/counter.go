package proccpu

// Seconds is the CPU time of a container's processes by role, counters.
type Seconds struct{ N8n, Runner float64 }

// Counter sums one container's readings into counters per role that
// never go backwards: a process adds what it used since its previous
// reading, a process read for the first time adds nothing yet, and one
// that is gone keeps what it added. A restarted runner is a new process.
// The zero Counter is ready; it is not safe for concurrent use.
type Counter struct {
	last  map[procKey]float64 // each process's seconds at its last reading
	total Seconds
}

// procKey tells processes apart across PID reuse.
type procKey struct {
	pid   int
	start uint64
}

// Add takes one reading of every process in the container and returns
// the counters.
func (c *Counter) Add(ps []Proc) Seconds {
	next := make(map[procKey]float64, len(ps))
	for _, p := range ps {
		k := procKey{p.PID, p.Start}
		now := p.Seconds
		if prev, ok := c.last[k]; ok {
			c.total.add(p.Runner, max(0, now-prev))
			now = max(now, prev)
		}
		next[k] = now
	}
	c.last = next
	return c.total
}

func (s *Seconds) add(runner bool, d float64) {
	if runner {
		s.Runner += d
	} else {
		s.N8n += d
	}
}
