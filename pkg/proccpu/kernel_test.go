//go:build linux

package proccpu

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

const cgroupRoot = "/sys/fs/cgroup"

// runnerArgv is a busy shell whose cmdline names the task runner, as
// n8n's `node … @n8n/task-runner/dist/start.js` does. It counts to 30
// million (tens of seconds of CPU at most), so a test that dies before
// killing it leaves no endless loop behind.
var runnerArgv = []string{"/bin/sh", "-c", "i=0; while [ $i -lt 30000000 ]; do i=$((i+1)); done", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"}

// kernelContainer is a cgroup this test makes on the machine's real
// hierarchy, laid out as Docker's cgroupfs driver lays out a container
// under --cgroup-parent, with real processes moved in.
type kernelContainer struct {
	t       *testing.T
	proc    topology.Process
	dir     string // holds cgroup.procs
	parent  string
	usage   func() float64 // the cgroup's CPU seconds
	started []*exec.Cmd
}

func newKernelContainer(t *testing.T) *kernelContainer {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k := &kernelContainer{t: t, parent: "n8n-ceiling-test-" + hex.EncodeToString(b), proc: topology.Process{ID: "c" + hex.EncodeToString(b)}}
	k.proc.CgroupParent = k.parent
	r := cgroup.NewReader(cgroupRoot)
	base := cgroupRoot
	if !r.V2() {
		base = filepath.Join(cgroupRoot, "cpuacct")
	}
	k.dir = filepath.Join(base, k.parent, k.proc.ID)
	if err := os.MkdirAll(k.dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup on this machine (%v): the real-kernel split needs root and a writable %s", err, base)
	}
	t.Cleanup(k.remove)
	k.usage = func() float64 {
		c, err := r.CPU(k.proc.ID, k.parent)
		if err != nil {
			t.Fatal(err)
		}
		return c.Seconds
	}
	return k
}

// start runs argv, killed if the test process dies, and moves it into
// the cgroup.
func (k *kernelContainer) start(argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	k.started = append(k.started, cmd)
	if err := os.WriteFile(filepath.Join(k.dir, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		k.t.Fatalf("move PID %d into %s: %v", cmd.Process.Pid, k.dir, err)
	}
	return cmd
}

func (k *kernelContainer) remove() {
	for _, cmd := range k.started {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	_ = os.Remove(k.dir)
	_ = os.Remove(filepath.Dir(k.dir))
}

// read is one reading of the container through its cgroup and /proc.
func (k *kernelContainer) read(c *Counter) Seconds {
	ps, err := Containers{PIDs: cgroup.NewReader(cgroupRoot), Proc: Reader{Root: "/proc"}}.Procs(k.proc)
	if err != nil {
		k.t.Fatal(err)
	}
	s := c.Add(ps)
	// A shell has one thread: its main thread is all of it.
	if math.Abs(s.Thread.Runner-s.Total.Runner) > 0.02 || math.Abs(s.Thread.N8n-s.Total.N8n) > 0.02 {
		k.t.Fatalf("single-threaded processes: main threads %+v, totals %+v", s.Thread, s.Total)
	}
	return s.Total
}

// burn lets cmd run until it has used at least sec of CPU, then stops it.
func burn(t *testing.T, cmd *exec.Cmd, sec float64) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		ps, err := Reader{Root: "/proc"}.Read([]int{cmd.Process.Pid})
		if err != nil || len(ps) != 1 {
			t.Fatalf("read PID %d: %v", cmd.Process.Pid, err)
		}
		if ps[0].Seconds >= sec {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PID %d used %.2f s of CPU in 60 s", cmd.Process.Pid, ps[0].Seconds)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// On the real kernel: an idle "n8n" and a busy "runner" in one cgroup.
// The CPU the runner burns is the runner's, the idle process's stays
// near zero, the two add up to the cgroup's own count, and a runner that
// is killed and started anew leaves the counter where it was.
func TestSplitOnTheRealKernel(t *testing.T) {
	k := newKernelContainer(t)
	k.start("/bin/sh", "-c", "exec sleep 600")
	runner := k.start(runnerArgv...)
	var c Counter
	base, usage0 := k.read(&c), k.usage()
	burn(t, runner, 0.4)
	split, usage := k.read(&c), k.usage()
	used := usage - usage0
	if split.Runner < 0.3 || split.N8n > 0.05 {
		t.Fatalf("after the runner burned: %+v (from %+v), want runner ≥ 0.3 s and n8n ≤ 0.05 s", split, base)
	}
	if math.Abs(split.Runner+split.N8n-used) > 0.05+0.05*used {
		t.Fatalf("processes %.3f s, the cgroup %.3f s", split.Runner+split.N8n, used)
	}
	_ = runner.Process.Kill()
	_ = runner.Wait()
	next := k.start(runnerArgv...)
	if restarted := k.read(&c); restarted.Runner != split.Runner {
		t.Fatalf("after the restart the runner counter is %.3f s, want %.3f s kept", restarted.Runner, split.Runner)
	}
	burn(t, next, 0.2)
	if after := k.read(&c); after.Runner < split.Runner+0.1 || after.N8n > 0.05 {
		t.Fatalf("the new runner's CPU: %+v, want runner ≥ %.3f s", after, split.Runner+0.1)
	}
}
