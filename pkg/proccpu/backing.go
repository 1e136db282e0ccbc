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

// DefaultRescan is how often a BackingReader reads every process's stat.
const DefaultRescan = 30 * time.Second

// BackingReader sums the CPU seconds of every PostgreSQL and Redis process
// the /proc tree at Root shows, by service. Reading a process's stat file
// costs about 30 µs, so it reads every process's every Rescan (default
// DefaultRescan); in between it lists /proc's PIDs at each reading and
// skips those found to be something else, so a connection that opens is
// counted from the reading after it did, with the little CPU it used
// since. Counting it only from the next full reading instead would add up
// to a Rescan of its CPU at once, and a demand window holding that step
// would read it as CPU per execution. It reads only stat files, never a
// cmdline. Not safe for concurrent use: the CPU sampler owns it.
type BackingReader struct {
	Root   string
	Rescan time.Duration

	other  map[int]bool // PIDs read since the last full reading that are no backing service's
	listed time.Time    // when every stat was last read
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
	procs, err := pfs.AllProcs()
	if err != nil {
		return nil, err
	}
	rescan := b.Rescan
	if rescan <= 0 {
		rescan = DefaultRescan
	}
	if b.other == nil || now.Sub(b.listed) >= rescan || now.Before(b.listed) {
		b.other, b.listed = map[int]bool{}, now
	}
	var read procfs.Procs
	other := map[int]bool{}
	for _, p := range procs {
		if b.other[p.PID] {
			other[p.PID] = true
		} else {
			read = append(read, p)
		}
	}
	found := backingOf(read)
	for _, p := range read {
		if _, ok := found[p.PID]; !ok {
			other[p.PID] = true
		}
	}
	b.other = other
	return sumBacking(found), nil
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
