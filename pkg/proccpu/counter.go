package proccpu

// Seconds is the CPU time of a container's processes by role, counters.
type Seconds struct{ N8n, Runner float64 }

// Split is one container's counters: each role's processes whole, and
// their main threads, where Node runs JavaScript.
type Split struct{ Total, Thread Seconds }

// Counter sums one container's readings into counters per role that
// never go backwards: a process adds what it used since its previous
// reading, a process read for the first time adds nothing yet, and one
// that is gone keeps what it added. A restarted runner is a new process.
// The zero Counter is ready; it is not safe for concurrent use.
type Counter struct {
	last  map[procKey]Proc // each process at its last reading
	total Split
}

// procKey tells processes apart across PID reuse.
type procKey struct {
	pid   int
	start uint64
}

// Add takes one reading of every process in the container and returns
// the counters.
func (c *Counter) Add(ps []Proc) Split {
	next := make(map[procKey]Proc, len(ps))
	for _, p := range ps {
		k := procKey{p.PID, p.Start}
		if prev, ok := c.last[k]; ok {
			c.total.Total.add(p.Runner, max(0, p.Seconds-prev.Seconds))
			c.total.Thread.add(p.Runner, max(0, p.Thread-prev.Thread))
			p.Seconds, p.Thread = max(p.Seconds, prev.Seconds), max(p.Thread, prev.Thread)
		}
		next[k] = p
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
