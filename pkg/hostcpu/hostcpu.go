// Package hostcpu reads the host's CPU time from /proc/stat: the busy
// seconds of all CPUs together, a counter, and the number of online CPUs.
// The exporter divides the busy time by the executions completed in the
// same window to get the host's CPU demand per execution.
package hostcpu

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// UserHZ is the unit of /proc/stat's times: the kernel reports them in
// USER_HZ ticks, 100 per second on every Linux architecture's ABI.
const UserHZ = 100

// Times is one reading of /proc/stat.
type Times struct {
	Busy  float64 // seconds: user, nice, system, irq, softirq and steal of all CPUs
	Idle  float64 // seconds: idle and iowait of all CPUs
	Cores int     // online CPUs: the cpuN lines
}

// Read reads <root>/stat; root is the host's /proc (mounted read-only
// when the exporter runs in a container).
func Read(root string) (Times, error) {
	f, err := os.Open(filepath.Join(root, "stat"))
	if err != nil {
		return Times{}, err
	}
	defer f.Close()
	return Parse(io.LimitReader(f, 1<<20))
}

// Parse reads /proc/stat's text. Steal counts as busy: time the
// hypervisor gave to others is time this host's executions did not get.
func Parse(r io.Reader) (Times, error) {
	var t Times
	total := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			t.Cores++
			continue
		}
		busy, idle, err := cpuLine(f[1:])
		if err != nil {
			return Times{}, err
		}
		t.Busy, t.Idle, total = busy/UserHZ, idle/UserHZ, true
	}
	if err := sc.Err(); err != nil {
		return Times{}, fmt.Errorf("/proc/stat: %w", err)
	}
	if !total || t.Cores == 0 {
		return Times{}, errors.New("/proc/stat: no cpu lines")
	}
	return t, nil
}

// cpuLine sums the aggregate line's fields: user nice system idle iowait
// irq softirq steal [guest guest_nice]. guest time is already in user.
func cpuLine(f []string) (busy, idle float64, err error) {
	if len(f) < 8 {
		return 0, 0, fmt.Errorf("/proc/stat: cpu line has %d fields, want at least 8", len(f))
	}
	var v [8]float64
	for i := range v {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i+1, err)
		}
		v[i] = float64(n)
	}
	return v[0] + v[1] + v[2] + v[5] + v[6] + v[7], v[3] + v[4], nil
}
