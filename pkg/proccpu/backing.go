package proccpu

import (
	"time"

	"github.com/prometheus/procfs"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/hostcpu"
)

// The backing services n8n needs beside its own processes, by their
// processes' comm: PostgreSQL (one process per connection, forked by the
// postmaster) and Redis or Valkey (Bull's queue).
const (
	Postgres = "postgres"
	Redis    = "redis"
)

var backingComms = map[string]string{
	"postgres":      Postgres,
	"redis-server":  Redis,
	"valkey-server": Redis,
}

// DefaultRescan is how often a BackingReader lists every process.
const DefaultRescan = 30 * time.Second

// BackingReader sums the CPU seconds of every PostgreSQL and Redis process
// the /proc tree at Root shows, by service. Reading a process's stat file
// costs about 30 µs, so it lists every process every Rescan (default
// DefaultRescan) and in between reads only those it found. A
// connection opened since the last listing is counted from the next one;
// one that closed keeps its CPU in its parent's children's time. It reads
// only stat files, never a cmdline. Not safe for concurrent use: the CPU
// sampler owns it.
type BackingReader struct {
	Root   string
	Rescan time.Duration

	pids   []int
	listed time.Time
}

// backingProc is one backing service's process as one reading saw it.
type backingProc struct {
	service string
	ppid    int
	self    float64 // user + system seconds
	ended   float64 // its reaped children's user + system seconds
}

// Read returns the CPU seconds of each service with a process at now;
// a service with none is absent. Each sum counts its processes' own time,
// and the reaped children's time (cutime + cstime) of those whose parent
// is not of the same service (the postmaster), so the sums never go
// backwards while connections come and go.
func (b *BackingReader) Read(now time.Time) (map[string]float64, error) {
	pfs, err := procfs.NewFS(b.Root)
	if err != nil {
		return nil, err
	}
	rescan := b.Rescan
	if rescan <= 0 {
		rescan = DefaultRescan
	}
	relist := b.pids == nil || now.Sub(b.listed) >= rescan || now.Before(b.listed)
	var procs procfs.Procs
	if relist {
		if procs, err = pfs.AllProcs(); err != nil {
			return nil, err
		}
	} else {
		procs = known(pfs, b.pids)
	}
	found := backingOf(procs)
	if relist {
		b.pids, b.listed = make([]int, 0, len(found)), now
		for pid := range found {
			b.pids = append(b.pids, pid)
		}
	}
	return sumBacking(found), nil
}

// known are the processes of pids still there.
func known(pfs procfs.FS, pids []int) procfs.Procs {
	var out procfs.Procs
	for _, pid := range pids {
		if p, err := pfs.Proc(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// backingOf reads procs' stat files and keeps the backing services'; a
// process gone, unreadable or now something else is left out.
func backingOf(procs procfs.Procs) map[int]backingProc {
	found := map[int]backingProc{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue
		}
		if service, ok := backingComms[st.Comm]; ok {
			found[p.PID] = backingProc{service, st.PPID, st.CPUTime(), float64(st.CUTime+st.CSTime) / hostcpu.UserHZ}
		}
	}
	return found
}

func sumBacking(found map[int]backingProc) map[string]float64 {
	out := map[string]float64{}
	for _, p := range found {
		out[p.service] += p.self
		if parent, ok := found[p.ppid]; !ok || parent.service != p.service {
			out[p.service] += p.ended
		}
	}
	return out
}
