// Package hostcpu reads the host's CPU time from /proc/stat: the busy
// seconds of all CPUs together, a counter, and the number of online CPUs.
// The exporter divides the busy time by the executions completed in the
// same window to get the host's CPU demand per execution.
package hostcpu

import (
	"errors"
	"fmt"

	"github.com/prometheus/procfs"
)

// UserHZ is the unit of /proc/stat's times: the kernel reports them in
// USER_HZ ticks, 100 per second on every Linux architecture's ABI, and
// procfs divides by it.
const UserHZ = 100

// Times is one reading of /proc/stat.
type Times struct {
	Busy float64 // seconds: user, nice, system, irq, softirq and steal of all CPUs
	Idle float64 // seconds: idle and iowait of all CPUs
	// Steal is the part of Busy the hypervisor gave to other guests while
	// this host's CPUs had work, in seconds.
	Steal float64
	Cores int // online CPUs: the cpuN lines
}

// Read reads <root>/stat; root is the host's /proc (mounted read-only
// when the exporter runs in a container). Steal counts as busy: time the
// hypervisor gave to others is time this host's executions did not get.
// A process's own CPU time leaves steal out (the kernel's task clock stops
// while the hypervisor runs another guest), so a process that wants a
// whole CPU gets 1 − Steal/Busy of one. Guest time is already in user.
func Read(root string) (Times, error) {
	fs, err := procfs.NewFS(root)
	if err != nil {
		return Times{}, err
	}
	st, err := fs.Stat()
	if err != nil {
		return Times{}, fmt.Errorf("/proc/stat: %w", err)
	}
	if len(st.CPU) == 0 || st.CPUTotal == (procfs.CPUStat{}) {
		return Times{}, errors.New("/proc/stat: want the cpu line and cpuN lines")
	}
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	return Times{Busy: busy, Idle: c.Idle + c.Iowait, Steal: c.Steal, Cores: len(st.CPU)}, nil
}
