//go:build linux

package proccpu

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// helperEnv makes this test binary a process that burns CPU on threads
// other than its main one, as V8's helpers and Node's worker threads do.
const helperEnv = "PROCCPU_TEST_BURN_OFF_MAIN"

func init() {
	if os.Getenv(helperEnv) == "" {
		return
	}
	runtime.LockOSThread() // init runs on the main thread: keep main here, idle
	for range 2 {
		go func() {
			runtime.LockOSThread()
			spins := 0
			for start := time.Now(); time.Since(start) < 30*time.Second; spins++ {
				spins %= 1 << 20
			}
		}()
	}
	time.Sleep(30 * time.Second)
	os.Exit(0)
}

// On the real kernel: a process busy on two threads beside an idle main
// thread. Seconds counts the whole thread group and Thread its main
// thread only.
func TestMainThreadApart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ps, err := Reader{Root: "/proc"}.Read([]int{cmd.Process.Pid})
		if err != nil || len(ps) != 1 {
			t.Fatalf("read PID %d: %v %+v", cmd.Process.Pid, err, ps)
		}
		if ps[0].Seconds >= 0.5 {
			if ps[0].Thread > 0.1 {
				t.Fatalf("main thread %.2f s of %.2f s: want the busy threads left out", ps[0].Thread, ps[0].Seconds)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("PID %d used %s s in 20 s", cmd.Process.Pid, strconv.FormatFloat(ps[0].Seconds, 'f', 2, 64))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
