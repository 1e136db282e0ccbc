package e2e

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// hostWork is one reading of the host's CPU as the test itself takes it
// from /proc, process by process: a peer for the exporter's background,
// which splits the host's busy time by container and service instead.
type hostWork struct {
	at     time.Time
	kernel float64 // seconds of irq, softirq and steal: busy time no process is charged
	procs  map[int]procCPU
}

// procCPU is one process's CPU seconds (user + system), its start (in
// ticks since boot: a PID reused between readings is another process) and
// whether it is n8n's: in a lab container, or PostgreSQL or Redis. A
// kernel worker's comm names the work it does now, so it is not an
// identity.
type procCPU struct {
	comm    string
	start   uint64
	n8n     bool
	seconds float64
}

// backingComms are the comms of the services whose CPU is n8n's.
var backingComms = map[string]bool{"postgres": true, "redis-server": true, "valkey-server": true}

// readHostWork reads /proc. labIDs holds the lab containers' full IDs; a
// process whose cgroup path ends in one of them is in that container.
func readHostWork(labIDs map[string]bool) (hostWork, error) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		return hostWork{}, err
	}
	st, err := fs.Stat()
	if err != nil {
		return hostWork{}, err
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return hostWork{}, err
	}
	c := st.CPUTotal
	w := hostWork{at: time.Now(), kernel: c.IRQ + c.SoftIRQ + c.Steal, procs: map[int]procCPU{}}
	for _, p := range procs {
		s, err := p.Stat()
		if err != nil {
			continue // gone since the listing
		}
		w.procs[p.PID] = procCPU{comm: s.Comm, start: s.Starttime, n8n: backingComms[s.Comm] || inContainer(p, labIDs), seconds: s.CPUTime()}
	}
	return w, nil
}

// inContainer says whether p's cgroup is one of ids' containers (cgroupfs
// "/docker/<id>" or systemd "docker-<id>.scope").
func inContainer(p procfs.Proc, ids map[string]bool) bool {
	groups, err := p.Cgroups()
	if err != nil {
		return false
	}
	for _, g := range groups {
		id := strings.TrimSuffix(strings.TrimPrefix(path.Base(g.Path), "docker-"), ".scope")
		if ids[id] {
			return true
		}
	}
	return false
}

// otherWork is what the host spent between two readings on work that is
// not n8n's, in cores: processes outside the lab's containers and
// services, and the kernel's irq, softirq and steal. A process that ended
// between the readings is missed; one that started counts whole.
type otherWork struct {
	cores float64
	procs map[string]float64 // cores by comm
}

func otherBetween(a, b hostWork) otherWork {
	span := b.at.Sub(a.at).Seconds()
	o := otherWork{cores: (b.kernel - a.kernel) / span, procs: map[string]float64{}}
	for pid, p := range b.procs {
		if p.n8n {
			continue
		}
		used := a.since(pid, p)
		o.cores += used / span
		o.procs[p.comm] += used / span
	}
	return o
}

// since is the CPU seconds p, read later as pid, used after a: all of
// them when a holds no such process (a PID reused is another process).
func (a hostWork) since(pid int, p procCPU) float64 {
	if before, ok := a.procs[pid]; ok && before.start == p.start {
		return p.seconds - before.seconds
	}
	return p.seconds
}

// of is the cores pid used between the readings, 0 when it is not in b.
func (a hostWork) of(b hostWork, pid int) float64 {
	p, ok := b.procs[pid]
	if !ok {
		return 0
	}
	return a.since(pid, p) / b.at.Sub(a.at).Seconds()
}

// top names the n busiest comms, busiest first.
func (o otherWork) top(n int) string {
	comms := make([]string, 0, len(o.procs))
	for c := range o.procs {
		comms = append(comms, c)
	}
	sort.Slice(comms, func(i, j int) bool { return o.procs[comms[i]] > o.procs[comms[j]] })
	var parts []string
	for _, c := range comms[:min(n, len(comms))] {
		parts = append(parts, fmt.Sprintf("%s %.3f", c, o.procs[c]))
	}
	return strings.Join(parts, ", ")
}
