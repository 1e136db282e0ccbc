package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startShell runs a shell whose command line names dir, like the cluster's
// processes name the state directory, and returns once the kernel shows
// that command line: Start returns when exec has begun, and for a moment
// /proc/<pid>/cmdline is still empty. A script must not end in a simple
// command: dash execs the last one in place of itself, and the command
// line then no longer names dir.
func startShell(t *testing.T, script, name string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script, name)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	cmdline := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cmdline")
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(cmdline); err == nil && len(b) > 0 {
			return cmd
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("pid %d shows no command line after 2 s", cmd.Process.Pid)
	return nil
}

func writePID(t *testing.T, path string, pid int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStopEndsOnlyTheClustersProcess(t *testing.T) {
	state := t.TempDir()
	f := Footprint{State: state}
	ours := startShell(t, "while :; do sleep 1; done", filepath.Join(state, "etcd"))
	pidFile := filepath.Join(state, "etcd.pid")
	writePID(t, pidFile, ours.Process.Pid)
	if !f.Alive(pidFile) {
		t.Fatal("Alive: false for a running process of the cluster")
	}
	go func() { _ = ours.Wait() }() // reap it, as init would
	msg, err := f.Stop(pidFile, syscall.SIGTERM, 5*time.Second)
	if err != nil || !strings.Contains(msg, "stopped etcd") || running(ours.Process.Pid) {
		t.Fatalf("Stop: %q, %v; still running %v", msg, err, running(ours.Process.Pid))
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Fatal("the PID file was kept")
	}

	// A PID file whose PID now belongs to someone else.
	other := startShell(t, "while :; do sleep 1; done", "/elsewhere")
	writePID(t, pidFile, other.Process.Pid)
	if f.Alive(pidFile) {
		t.Fatal("Alive: true for someone else's process")
	}
	msg, err = f.Stop(pidFile, syscall.SIGTERM, time.Second)
	if err != nil || !strings.Contains(msg, "left") || !running(other.Process.Pid) {
		t.Fatalf("Stop on a reused PID: %q, %v; running %v", msg, err, running(other.Process.Pid))
	}
	if msg, err := f.Stop(pidFile, syscall.SIGTERM, time.Second); msg != "" || err != nil {
		t.Fatalf("Stop without a PID file: %q, %v", msg, err)
	}
}

func TestStopContainerEndsInitThenShim(t *testing.T) {
	state := t.TempDir()
	task := filepath.Join(state, "task", "0123456789abcdef")
	if err := os.MkdirAll(task, 0o755); err != nil {
		t.Fatal(err)
	}
	initFile := filepath.Join(task, "init.pid")
	// The "shim" starts the "init", records its PID as runc does, and outlives it.
	shim := startShell(t, `sh -c 'sleep 60; :' "$0/init" & echo $! >"$0/init.pid"; wait; sleep 60`, task)
	go func() { _ = shim.Wait() }()
	var initPID int
	for i := 0; i < 100 && initPID == 0; i++ {
		b, _ := os.ReadFile(initFile)
		initPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	said, err := Footprint{State: state}.StopContainer(initFile)
	if err != nil || len(said) != 2 {
		t.Fatalf("StopContainer: %q, %v", said, err)
	}
	if running(initPID) || running(shim.Process.Pid) {
		t.Fatalf("init running %v, shim running %v", running(initPID), running(shim.Process.Pid))
	}
}
