//go:build linux

package proccpu

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// helperEnv makes this test binary a process that burns CPU on threads
// other than its main one, as V8's helpers and Node's worker threads do;
// with "contend" its main thread spins too.
const helperEnv = "PROCCPU_TEST_BURN_OFF_MAIN"

func init() {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	runtime.LockOSThread() // init runs on the main thread: keep main here
	for range 2 {
		go func() {
			runtime.LockOSThread()
			spin(30 * time.Second)
		}()
	}
	if mode == "contend" {
		spin(30 * time.Second)
	}
	time.Sleep(30 * time.Second)
	os.Exit(0)
}

// spin keeps its thread busy for d.
func spin(d time.Duration) {
	spins := 0
	for start := time.Now(); time.Since(start) < d; spins++ {
		spins %= 1 << 20
	}
}

// On the real kernel: three busy threads held on one CPU, so each runs
// about a third of the time and waits the rest. The main thread's wait
// (schedstat's run delay) is then about twice its CPU time; the bound
// below allows a scheduler that favours it fourfold.
func TestMainThreadWait(t *testing.T) {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset (util-linux)")
	}
	cmd := exec.Command(taskset, "-c", "0", os.Args[0], "-test.run=^$")
	// GOMAXPROCS: Go would size itself to the one CPU and run one
	// goroutine at a time.
	cmd.Env = append(os.Environ(), helperEnv+"=contend", "GOMAXPROCS=4")
	p := pollUntil(t, startHelper(t, cmd), func(p Proc) bool {
		if !p.HasWait {
			t.Fatalf("PID %d: %+v, want its main thread's wait", p.PID, p)
		}
		return p.Thread+p.Wait >= 1.5
	})
	if share := p.Wait / (p.Thread + p.Wait); share < 0.4 {
		t.Fatalf("main thread ran %.2f s and waited %.2f s (%.2f): want about 2/3 waiting, at least 0.4", p.Thread, p.Wait, share)
	}
	t.Logf("main thread ran %.2f s and waited %.2f s", p.Thread, p.Wait)
}

// On the real kernel: a process busy on two threads beside an idle main
// thread. Seconds counts the whole thread group and Thread its main
// thread only.
func TestMainThreadApart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	p := pollUntil(t, startHelper(t, cmd), func(p Proc) bool { return p.Seconds >= 0.5 })
	if p.Thread > 0.1 {
		t.Fatalf("main thread %.2f s of %.2f s: want the busy threads left out", p.Thread, p.Seconds)
	}
}

// startHelper starts cmd (this test binary as a helper), kills it when
// the test ends, and returns its PID.
func startHelper(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// pollUntil reads pid every 20 ms until enough accepts the reading, and
// returns it; it fails the test after 20 s.
func pollUntil(t *testing.T, pid int, enough func(Proc) bool) Proc {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ps, err := Reader{Root: "/proc"}.Read([]int{pid})
		if err != nil || len(ps) != 1 {
			t.Fatalf("read PID %d: %v %+v", pid, err, ps)
		}
		if enough(ps[0]) {
			return ps[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("PID %d after 20 s: %+v", pid, ps[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
