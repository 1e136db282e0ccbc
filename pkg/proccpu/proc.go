package proccpu

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"syscall"

	"github.com/prometheus/procfs"
)

// Proc is one process as one reading saw it.
type Proc struct {
	PID int
	// Start is its start time in clock ticks after boot: with PID it
	// tells a new process from an old one whose PID was reused.
	Start   uint64
	Runner  bool    // its cmdline names the task runner
	Seconds float64 // user + system CPU time of its thread group
	// Thread is the user + system CPU time of its main thread (TID =
	// PID), where Node runs JavaScript; V8's helpers and Node's worker
	// threads are the rest of Seconds.
	Thread float64
	// Wait is the time its main thread spent runnable but waiting for a
	// core (schedstat's run delay), in seconds; read only when HasWait.
	Wait    float64
	HasWait bool // the kernel keeps schedstat (CONFIG_SCHED_INFO)
}

// Reader reads processes from the /proc tree at Root, whose PID
// namespace the PIDs it is given must be of.
type Reader struct{ Root string }

// Read reads each PID's CPU time and role. A PID that exited after it
// was listed is left out.
func (r Reader) Read(pids []int) ([]Proc, error) {
	pfs, err := procfs.NewFS(r.Root)
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(pids))
	for _, pid := range pids {
		p, err := r.read(pfs, pid)
		if exited(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func (r Reader) read(pfs procfs.FS, pid int) (Proc, error) {
	p, err := pfs.Proc(pid)
	if err != nil {
		return Proc{}, err
	}
	st, err := p.Stat()
	if err != nil {
		return Proc{}, r.fileErr(pid, "stat", err)
	}
	argv, err := p.CmdLine()
	if err != nil {
		return Proc{}, r.fileErr(pid, "cmdline", err)
	}
	main, err := p.Thread(pid)
	if err != nil {
		return Proc{}, err
	}
	mst, err := main.Stat()
	if err != nil {
		return Proc{}, r.fileErr(pid, "task/"+strconv.Itoa(pid)+"/stat", err)
	}
	out := Proc{PID: pid, Start: st.Starttime, Runner: IsRunner(argv), Seconds: st.CPUTime(), Thread: mst.CPUTime()}
	out.Wait, out.HasWait, err = mainWait(main)
	if err != nil {
		return Proc{}, r.fileErr(pid, "task/"+strconv.Itoa(pid)+"/schedstat", err)
	}
	return out, nil
}

// mainWait reads a thread's run delay in seconds; has is false on a
// kernel without schedstat. A thread that ended since its stat was read
// is not such a kernel: its stat's error comes back, and the process is
// left out as exited.
func mainWait(thread procfs.Proc) (wait float64, has bool, err error) {
	ss, err := thread.Schedstat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := thread.Stat(); serr != nil {
			return 0, false, serr
		}
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return float64(ss.WaitingNanoseconds) / 1e9, true, nil
}

// fileErr keeps an error's path and errno and drops any file content a
// parse error quotes.
func (r Reader) fileErr(pid int, file string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) || exited(err) {
		return err
	}
	return fmt.Errorf("%s/%d/%s: malformed", r.Root, pid, file)
}

// exited is the error of a process that ended between two reads.
func exited(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}
