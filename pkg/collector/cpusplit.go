package collector

import (
	"errors"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// ProcessReader reads the processes in one container's cgroup from /proc
// (proccpu.Containers).
type ProcessReader interface {
	Procs(p topology.Process) ([]proccpu.Proc, error)
}

// Why a container's n8n and runner processes are not read apart.
const (
	whyNoProcRoot = "EXPORTER_PROC_ROOT is empty, so no process is read from /proc"
	whyNamespace  = "the exporter runs in another PID namespace: the container's cgroup.procs lists no PID it can see (give the exporter the host's: pid: host in Compose, hostPID in Kubernetes)"
)

// splitCounter is one internal host's per-process counters and when its
// processes were last read.
type splitCounter struct {
	proccpu.Counter
	seen time.Time
}

// readSplit reads p's n8n and runner processes apart into cpu: their
// main threads (with Threads, and those threads' run delays as
// processWait counters; else their thread groups) as capacity.ProcessCPU
// counters, and their thread groups as processTotal ones. It returns why
// it could not ("" when it did).
func (s *cpuSampler) readSplit(p topology.Process, now time.Time, cpu map[string]float64) string {
	if s.cfg.Procs == nil {
		return whyNoProcRoot
	}
	ps, err := s.cfg.Procs.Procs(p)
	switch {
	case errors.Is(err, proccpu.ErrOtherNamespace):
		return whyNamespace
	case err != nil:
		return "its processes are not readable: " + err.Error()
	}
	c := s.splits[p.Name]
	if c == nil {
		c = &splitCounter{}
		s.splits[p.Name] = c
	}
	c.seen = now
	t := c.Add(ps)
	n8n, runner := capacity.ProcessCPU(p.Name, capacity.ProcessN8n), capacity.ProcessCPU(p.Name, capacity.ProcessRunner)
	own := t.Total
	if s.cfg.Threads {
		own = t.Thread
		if t.HasWait {
			cpu[processWait(n8n)], cpu[processWait(runner)] = t.Wait.N8n, t.Wait.Runner
		}
	}
	cpu[n8n], cpu[runner] = own.N8n, own.Runner
	cpu[processTotal(n8n)], cpu[processTotal(runner)] = t.Total.N8n, t.Total.Runner
	return ""
}

// processTotal keys a process's whole CPU time (every thread) in the
// demand readings: not a resource, its role's share of the host's demand.
func processTotal(process string) string { return process + " total" }

// forgetSplits drops the counters of containers not read for two demand
// windows: by then no reading in the window holds them, so one that
// returns starts at zero without going backwards inside a window.
func (s *cpuSampler) forgetSplits(now time.Time) {
	for name, c := range s.splits {
		if now.Sub(c.seen) > 2*s.cfg.Window {
			delete(s.splits, name)
		}
	}
}
