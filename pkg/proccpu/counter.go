package proccpu

// Seconds is the CPU time of a container's processes by role, counters.
type Seconds struct{ N8n, Runner float64 }

// Split is one container's counters: each role's processes whole, and
// their main threads, where Node runs JavaScript, with the time those
// threads waited for a core. Wait is kept only while HasWait: every
// reading so far read every process's wait.
type Split struct {
	Total, Thread, Wait Seconds
	HasWait             bool
}

// Counter sums one container's readings into counters per role that
// never go backwards: a process adds what it used since its previous
// reading, a process read for the first time adds nothing yet, and one
// that is gone keeps what it added. A restarted runner is a new process.
// The zero Counter is ready; it is not safe for concurrent use.
type Counter struct {
	last   map[procKey]Proc // each process at its last reading
	total  Split
	noWait bool // a process was read without its wait
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
		c.noWait = c.noWait || !p.HasWait
		k := procKey{p.PID, p.Start}
		if prev, ok := c.last[k]; ok {
			c.total.Total.add(p.Runner, max(0, p.Seconds-prev.Seconds))
			c.total.Thread.add(p.Runner, max(0, p.Thread-prev.Thread))
			c.total.Wait.add(p.Runner, max(0, p.Wait-prev.Wait))
			p.Seconds, p.Thread, p.Wait = max(p.Seconds, prev.Seconds), max(p.Thread, prev.Thread), max(p.Wait, prev.Wait)
		}
		next[k] = p
	}
	c.last = next
	c.total.HasWait = !c.noWait
	return c.total
}

func (s *Seconds) add(runner bool, d float64) {
	if runner {
		s.Runner += d
	} else {
		s.N8n += d
	}
}
