package proccpu

import (
	"math"
	"testing"
)

// A runner that restarts, a PID reused by a new process and a reading
// that goes down: the counters add only what each process used between
// two of its own readings, and never go backwards; its main thread's
// counters alike.
func TestCounterCarriesOver(t *testing.T) {
	n8n := func(s float64) Proc { return Proc{PID: 7, Start: 500, Seconds: s, Thread: s / 2} }
	runner := func(pid int, start uint64, s float64) Proc {
		return Proc{PID: pid, Start: start, Runner: true, Seconds: s, Thread: s / 2}
	}
	steps := []struct {
		name  string
		procs []Proc
		want  Seconds
	}{
		{"first reading: a baseline", []Proc{n8n(100), runner(45, 900, 40)}, Seconds{}},
		{"both used CPU", []Proc{n8n(100.5), runner(45, 900, 41)}, Seconds{N8n: 0.5, Runner: 1}},
		{"the runner exited", []Proc{n8n(100.75)}, Seconds{N8n: 0.75, Runner: 1}},
		{"a new runner: from its first reading", []Proc{n8n(101), runner(46, 2000, 0.3)}, Seconds{N8n: 1, Runner: 1}},
		{"the new runner used CPU", []Proc{n8n(101), runner(46, 2000, 1.3)}, Seconds{N8n: 1, Runner: 2}},
		{"its PID reused by another process", []Proc{n8n(101), runner(46, 3000, 0.1)}, Seconds{N8n: 1, Runner: 2}},
		{"a reading below the last", []Proc{n8n(100.9), runner(46, 3000, 0.4)}, Seconds{N8n: 1, Runner: 2.3}},
		{"back above it", []Proc{n8n(101.2), runner(46, 3000, 0.4)}, Seconds{N8n: 1.2, Runner: 2.3}},
		{"nothing readable", nil, Seconds{N8n: 1.2, Runner: 2.3}},
	}
	var c Counter
	var prev Seconds
	for _, s := range steps {
		split := c.Add(s.procs)
		got := split.Total
		if split.Thread.N8n*2 != got.N8n || split.Thread.Runner*2 != got.Runner {
			t.Errorf("%s: main threads %+v, want half of %+v", s.name, split.Thread, got)
		}
		if math.Abs(got.N8n-s.want.N8n) > 1e-9 || math.Abs(got.Runner-s.want.Runner) > 1e-9 {
			t.Errorf("%s: got %+v, want %+v", s.name, got, s.want)
		}
		if got.N8n < prev.N8n || got.Runner < prev.Runner {
			t.Errorf("%s: %+v went below %+v", s.name, got, prev)
		}
		prev = got
	}
}

// A role's wait adds like its CPU; one process read without its wait
// (a kernel without schedstat) leaves the container's wait unknown from
// then on, since its counter would skip that process's share.
func TestCounterWait(t *testing.T) {
	proc := func(pid int, runner bool, wait float64, has bool) Proc {
		return Proc{PID: pid, Start: 1, Runner: runner, Wait: wait, HasWait: has}
	}
	var c Counter
	c.Add([]Proc{proc(7, false, 10, true), proc(45, true, 2, true)})
	s := c.Add([]Proc{proc(7, false, 10.5, true), proc(45, true, 2.25, true)})
	if !s.HasWait || math.Abs(s.Wait.N8n-0.5) > 1e-9 || math.Abs(s.Wait.Runner-0.25) > 1e-9 {
		t.Fatalf("got %+v, want waits 0.5 and 0.25", s)
	}
	if s = c.Add([]Proc{proc(7, false, 11, true), proc(45, true, 2.5, false)}); s.HasWait {
		t.Fatalf("a process without its wait: got %+v, want HasWait false", s)
	}
	if s = c.Add([]Proc{proc(7, false, 12, true)}); s.HasWait {
		t.Fatalf("after one reading without: got %+v, want HasWait false", s)
	}
}
