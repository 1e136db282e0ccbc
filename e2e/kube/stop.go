package kube

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LabFootprint is the footprint of the lab named by KUBE_STATE and
// KUBE_CACHE (defaults DefaultState and DefaultCache), with what up.sh
// recorded.
func LabFootprint() Footprint {
	state, cache := os.Getenv("KUBE_STATE"), os.Getenv("KUBE_CACHE")
	if state == "" {
		state = DefaultState
	}
	if cache == "" {
		cache = DefaultCache
	}
	return FootprintOf(state, filepath.Join(cache, "bin"), NetnsName, HostVeth)
}

// Stop ends the process whose PID pidFile records, if it is alive and
// belongs to the cluster: sig first, SIGKILL once grace has passed. A stale
// file (no such process, or someone else's since the PID was reused) is
// only removed. It says what it did, or "" when there was nothing to stop.
func (f Footprint) Stop(pidFile string, sig syscall.Signal, grace time.Duration) (string, error) {
	raw, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(pidFile), ".pid")
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 1 {
		return fmt.Sprintf("removed %s: no valid PID in it", pidFile), os.Remove(pidFile)
	}
	if !running(pid) {
		return "", os.Remove(pidFile)
	}
	if f.owns(pid) == "" {
		return fmt.Sprintf("left %s (%d) alone: it is not the cluster's (PID reused)", name, pid), os.Remove(pidFile)
	}
	how := signalNames[sig]
	_ = syscall.Kill(pid, sig)
	if !waitGone(pid, grace) {
		how = signalNames[syscall.SIGKILL]
		_ = syscall.Kill(pid, syscall.SIGKILL)
		if !waitGone(pid, 10*time.Second) {
			return "", fmt.Errorf("%s (%d) survived SIGKILL", name, pid)
		}
	}
	return fmt.Sprintf("stopped %s (%d) with %s", name, pid, how), os.Remove(pidFile)
}

// Alive reports whether pidFile names a running (not zombie) process that
// belongs to the cluster.
func (f Footprint) Alive(pidFile string) bool {
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	return err == nil && pid > 1 && running(pid) && f.owns(pid) != ""
}

// signalNames are the signals Stop is given.
var signalNames = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGKILL: "SIGKILL"}

// StopContainer ends a container whose init PID initFile records, with
// SIGKILL (which ends its whole PID namespace), and then the shim that is its
// parent, if that belongs to the cluster too. Several containers of a pod
// share one shim.
func (f Footprint) StopContainer(initFile string) ([]string, error) {
	raw, err := os.ReadFile(initFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	shim := 0
	if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
		shim = parent(pid)
	}
	id := filepath.Base(filepath.Dir(initFile))
	var said []string
	msg, err := f.Stop(initFile, syscall.SIGKILL, 0)
	if msg != "" {
		said = append(said, "container "+id[:min(12, len(id))]+": "+msg)
	}
	if err != nil || shim <= 1 || !running(shim) || f.owns(shim) == "" {
		return said, err
	}
	_ = syscall.Kill(shim, syscall.SIGKILL)
	if !waitGone(shim, 10*time.Second) {
		return said, fmt.Errorf("shim %d survived SIGKILL", shim)
	}
	return append(said, fmt.Sprintf("stopped its shim (%d)", shim)), nil
}

// parent is the PPID of pid, or 0.
func parent(pid int) int {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// running is true for a live process; a zombie has already stopped.
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for running(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
