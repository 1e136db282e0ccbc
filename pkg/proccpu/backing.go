package proccpu

import (
	"github.com/prometheus/procfs"
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

// userHZ is the unit of a stat file's times (USER_HZ, 100 on every Linux
// ABI).
const userHZ = 100

// ReadBacking sums the CPU seconds of every PostgreSQL and Redis process
// the /proc tree at root shows, by service; a service with no process is
// absent. Each sum counts its processes' own user + system time, and the
// time of the children that ended (cutime + cstime) of the processes whose
// parent is not of the same service (the postmaster), so that a connection
// that closes keeps its CPU in the sum: the sums never go backwards while
// connections come and go. It reads only stat files, never a cmdline.
func ReadBacking(root string) (map[string]float64, error) {
	pfs, err := procfs.NewFS(root)
	if err != nil {
		return nil, err
	}
	procs, err := pfs.AllProcs()
	if err != nil {
		return nil, err
	}
	type seen struct {
		service string
		ppid    int
		self    float64
		ended   float64
	}
	found := map[int]seen{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // exited since the listing, or not ours to read
		}
		if service, ok := backingComms[st.Comm]; ok {
			found[st.PID] = seen{service, st.PPID, st.CPUTime(), float64(st.CUTime+st.CSTime) / userHZ}
		}
	}
	out := map[string]float64{}
	for _, s := range found {
		out[s.service] += s.self
		if parent, ok := found[s.ppid]; !ok || parent.service != s.service {
			out[s.service] += s.ended
		}
	}
	return out, nil
}
