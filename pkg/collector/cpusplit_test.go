package collector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/demand"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/hostcpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// splitLoad is ten executions a second for 40 s on the fixture worker
// with its internal runner: CPU seconds a second of its n8n process, its
// runner and the host, the container's quota (0: none), and the step at
// which a new runner replaces the old (0: none).
type splitLoad struct {
	n8n, runner, host float64
	n8nThreads        float64 // n8n's CPU a second off its main thread
	n8nWait           float64 // n8n's main thread's run delay a second (0: schedstat unread)
	quota             float64
	restartAt         int
	fixture           string  // the container's docker inspect (default the internal worker)
	threads           bool    // CPUConfig.Threads
	postgres          float64 // PostgreSQL's CPU seconds a second (0: no PostgreSQL on the host)
	backingErr        string  // the backing services' read fails with this
}

// scriptedProcs plays the worker container's processes as /proc shows
// them at step: tini, n8n (PID 7) and the runner (PID 45, or 46 after a
// restart, whose first reading already holds 0.2 s of start-up).
type scriptedProcs struct {
	load  splitLoad
	step  int
	err   error
	calls int
}

func (s *scriptedProcs) Procs(topology.Process) ([]proccpu.Proc, error) {
	s.calls++
	if s.err != nil {
		return nil, s.err
	}
	at := float64(s.step)
	runner := proccpu.Proc{PID: 45, Start: 900, Runner: true, Seconds: 10 + s.load.runner*at}
	if s.load.restartAt > 0 && s.step >= s.load.restartAt {
		runner = proccpu.Proc{PID: 46, Start: 5000, Runner: true, Seconds: 0.2 + s.load.runner*(at-float64(s.load.restartAt))}
	}
	n8n := proccpu.Proc{PID: 7, Start: 120, Seconds: 50 + (s.load.n8n+s.load.n8nThreads)*at}
	if s.load.n8nWait > 0 {
		n8n.Wait, n8n.HasWait = 9+s.load.n8nWait*at, true
	}
	ps := []proccpu.Proc{single(proccpu.Proc{PID: 1, Start: 100, Seconds: 0.01}), threaded(n8n, 50+s.load.n8n*at), single(runner)}
	if s.load.n8nWait > 0 {
		ps[0].HasWait, ps[2].HasWait = true, true
	}
	return ps, nil
}

// single is a process of one thread: its main thread is all of it.
func single(p proccpu.Proc) proccpu.Proc {
	p.Thread = p.Seconds
	return p
}

// threaded is p with main seconds on its main thread.
func threaded(p proccpu.Proc, main float64) proccpu.Proc {
	p.Thread = main
	return p
}

// splitReport samples the load with procs as the process reader (nil:
// none) and returns the report a scrape then gives, and the collector.
func splitReport(t *testing.T, load splitLoad, procs *scriptedProcs) (*Report, *Collector) {
	rd := queuetest.StartMemory(t)
	ctx := context.Background()
	if load.fixture == "" {
		load.fixture = "inspect-internal-worker.json"
	}
	w := fixtureProcess(t, load.fixture)
	r := &Report{Processes: []topology.Process{w}, Topology: topology.Pair([]topology.Process{w}),
		Measured: []ServiceTime{{Stage: "job", Source: "redis", Time: 20 * time.Millisecond}}}
	host := newCPUHost(t, w.ID)
	if load.quota > 0 {
		mustWrite(t, filepath.Join(host.cgroupRoot, "cpu", "docker", w.ID, "cpu.cfs_quota_us"), fmt.Sprintf("%d\n", int(load.quota*100000)))
	}
	cfg := &CPUConfig{Executions: queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute), CPU: dockerstats.CgroupCPU{Reader: cgroup.NewReader(host.cgroupRoot)},
		Host: func() (hostcpu.Times, error) { return hostcpu.Read(host.proc) }, Window: 30 * time.Second, MinExecutions: 50, Threads: load.threads}
	if procs != nil {
		procs.load, cfg.Procs = load, procs
	}
	var at float64
	cfg.Backing = func() (map[string]float64, error) {
		if load.backingErr != "" {
			return nil, errors.New(load.backingErr)
		}
		if load.postgres == 0 {
			return nil, nil
		}
		return map[string]float64{proccpu.Postgres: 3 + load.postgres*at}, nil
	}
	c := New(Config{CPU: cfg})
	c.cpu.point(r.Processes)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for s := 0; s <= 40; s++ {
		at = float64(s)
		if procs != nil {
			procs.step = s
		}
		rd.Client.Set(ctx, "bull:jobs:id", 10*s, 0)
		host.set(map[string]float64{w.ID: 100 + (load.n8n+load.n8nThreads+load.runner)*float64(s)}, 1000+load.host*float64(s))
		c.cpu.step(ctx, t0.Add(time.Duration(s)*time.Second))
	}
	c.evaluate(r)
	c.bound(r)
	return r, c
}

func resourceOf(t *testing.T, r *Report, name string) capacity.ResourceBound {
	t.Helper()
	for _, res := range r.Bounds.Resources {
		if res.Name == name {
			return res
		}
	}
	t.Fatalf("no resource %s in %+v", name, r.Bounds.Resources)
	return capacity.ResourceBound{}
}

func cpuNames(r *Report) []string {
	var names []string
	for _, res := range r.Bounds.Resources {
		if res.Kind == capacity.KindCPU {
			names = append(names, res.Name)
		}
	}
	slices.Sort(names)
	return names
}

// A worker at 0.9 of a core in its runner and 0.09 in n8n, the runner
// restarted midway: read apart, the runner binds at 0.94 / 87 ms =
// 10.8/s, where the container as one 1.88-core resource would allow
// 19/s and leave the host (16.7/s) binding. The restart costs the old
// runner's last second and the new one's start-up, never a negative or
// huge demand. Scrapes read the sampler's view without reading again.
func TestSplitKnownBindsTheRunner(t *testing.T) {
	procs := &scriptedProcs{}
	r, col := splitReport(t, splitLoad{n8n: 0.09, runner: 0.9, host: 1.2, restartAt: 20}, procs)
	if r.Bounds == nil {
		t.Fatalf("no bounds: %s", r.BoundsErr)
	}
	want := []string{"cpu:fx-internal-worker/n8n", "cpu:fx-internal-worker/runner", "cpu:host"}
	if got := cpuNames(r); !slices.Equal(got, want) {
		t.Fatalf("CPU resources %v, want %v", got, want)
	}
	run, n8n := resourceOf(t, r, "cpu:fx-internal-worker/runner"), resourceOf(t, r, "cpu:fx-internal-worker/n8n")
	// Window s=10..40: the runner's 0.9 × (9 + 20) s over 300 executions.
	if math.Abs(run.Demand-0.087) > 1e-9 || run.Servers != capacity.DefaultProcessCores || math.Abs(n8n.Demand-0.009) > 1e-9 {
		t.Fatalf("runner %+v, n8n %+v: want 87 ms and 9 ms on %g cores each", run, n8n, capacity.DefaultProcessCores)
	}
	if got := r.Bounds.Bottleneck(); got != "cpu:fx-internal-worker/runner" || math.Abs(r.Ceiling()-0.94/0.087) > 1e-6 {
		t.Fatalf("bottleneck %s at %v, want the runner at 10.8/s", got, r.Ceiling())
	}
	hasLines(t, Verdict(r),
		"worker fx-internal-worker: n8n and its internal runner are two Node processes, read apart from /proc (each up to 0.94 of a core: cpu:fx-internal-worker/n8n and cpu:fx-internal-worker/runner)",
		"ceiling 10.8/s, set by the CPU of fx-internal-worker/runner: 0.94 core, 87.0 ms per execution")
	if text := strings.Join(Verdict(r), "\n"); strings.Contains(text, "quota") || strings.Contains(text, "not read apart") {
		t.Errorf("a quota or a fallback named:\n%s", text)
	}
	for range 2 {
		again := &Report{Processes: r.Processes, Topology: r.Topology, Measured: r.Measured}
		col.evaluate(again)
		col.bound(again)
		if procs.calls != 41 || !slices.Equal(again.Bounds.Resources, r.Bounds.Resources) {
			t.Fatalf("%d process readings after 41 steps and more scrapes, want 41; resources %+v, want %+v",
				procs.calls, again.Bounds.Resources, r.Bounds.Resources)
		}
	}
}

// With a quota of 1.5 cores the container is a resource too, of its
// total, beside its two processes; the host's split by role counts the
// processes once, not the container's total again.
func TestSplitKnownWithQuota(t *testing.T) {
	r, _ := splitReport(t, splitLoad{n8n: 0.1, runner: 0.5, host: 1.8, quota: 1.5}, &scriptedProcs{})
	want := []string{"cpu:fx-internal-worker", "cpu:fx-internal-worker/n8n", "cpu:fx-internal-worker/runner", "cpu:host"}
	if got := cpuNames(r); !slices.Equal(got, want) {
		t.Fatalf("CPU resources %v, want %v", got, want)
	}
	if c := resourceOf(t, r, "cpu:fx-internal-worker"); c.Servers != 1.5 || math.Abs(c.Demand-0.06) > 1e-9 {
		t.Fatalf("container %+v, want 1.5 cores at 60 ms", c)
	}
	hasLines(t, Verdict(r),
		"with a CPU quota the container's total is a resource too (cpu:fx-internal-worker, of the quota)",
		"set by the host's CPU: 0.80 of its 2 cores (other work takes 1.20), 60.0 ms per execution (worker 10.0 ms, runner 50.0 ms)")
}

// Not read apart: one resource of the container's total, of 1.88 cores
// or the quota if lower, and / says why.
func TestSplitUnknownFallsBack(t *testing.T) {
	for name, c := range map[string]struct {
		procs *scriptedProcs
		quota float64
		why   string
	}{
		"no EXPORTER_PROC_ROOT":    {nil, 0, whyNoProcRoot},
		"another PID namespace":    {&scriptedProcs{err: proccpu.ErrOtherNamespace}, 1.5, whyNamespace},
		"an unreadable /proc tree": {&scriptedProcs{err: errors.New("open /proc/7/stat: permission denied")}, 0, "its processes are not readable: open /proc/7/stat: permission denied"},
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := splitReport(t, splitLoad{n8n: 0.09, runner: 0.9, host: 1.2, quota: c.quota}, c.procs)
			if got := cpuNames(r); !slices.Equal(got, []string{"cpu:fx-internal-worker", "cpu:host"}) {
				t.Fatalf("CPU resources %v, want the container and the host", got)
			}
			res := resourceOf(t, r, "cpu:fx-internal-worker")
			if m := capped(internalHostCores(capacity.DefaultProcessCores), c.quota); res.Servers != m || math.Abs(res.Demand-0.099) > 1e-9 {
				t.Fatalf("container %+v, want %g cores at 99 ms", res, m)
			}
			hasLines(t, Verdict(r), "worker fx-internal-worker: n8n and its internal runner are two Node processes in one container, not read apart ("+
				c.why+"), so the container's total is one resource of 1.88 cores, or its CPU quota if lower")
		})
	}
}

// n8n 2.41 runs part of each execution on worker threads beside its main
// one. A worker whose main thread uses 0.3 of a core and its other
// threads 0.6 at 10/s. With Threads the process resource is the main
// thread's 30 ms (31.3/s), the host binds, and its split by role counts
// every thread. Without, the process's 90 ms (10.4/s) binds, and / says
// that reads low on 2.41 and how to count the main thread.
func TestMainThreadIsTheProcess(t *testing.T) {
	load := splitLoad{n8n: 0.3, n8nThreads: 0.6, runner: 0.1, host: 1.9, threads: true}
	r, _ := splitReport(t, load, &scriptedProcs{})
	if n8n := resourceOf(t, r, "cpu:fx-internal-worker/n8n"); math.Abs(n8n.Demand-0.03) > 1e-9 {
		t.Fatalf("n8n %+v, want its main thread's 30 ms", n8n)
	}
	if got := r.Bounds.Bottleneck(); got != capacity.HostCPU {
		t.Fatalf("bottleneck %s, want the host", got)
	}
	hasLines(t, Verdict(r),
		"set by the host's CPU: 1.10 of its 2 cores (other work takes 0.90), 100 ms per execution (worker 90.0 ms, runner 10.0 ms)",
		"each n8n and runner process is a CPU resource of its main thread, where Node runs JavaScript, read from /proc (up to 0.94 of a core, cpu:<container>/n8n); its other threads (V8's helpers, and the worker threads n8n 2.41 runs part of each execution on) count in the host's CPU")
	load.threads = false
	r, _ = splitReport(t, load, &scriptedProcs{})
	if n8n := resourceOf(t, r, "cpu:fx-internal-worker/n8n"); math.Abs(n8n.Demand-0.09) > 1e-9 || r.Bounds.Bottleneck() != n8n.Name {
		t.Fatalf("n8n %+v binding %s, want the whole process's 90 ms binding", n8n, r.Bounds.Bottleneck())
	}
	hasLines(t, Verdict(r), "cpu:fx-internal-worker/n8n counts every thread of its process against 0.94 of a core; n8n 2.41 runs part of each execution on worker threads beside the one JavaScript thread, so there this ceiling reads low: EXPORTER_PROCESS_CPU=thread counts the main thread alone (needs the host's PID namespace)")
}

// A worker whose main thread runs 0.6 of a core at 10/s and waits 0.2 s
// a second for one: it ran 75 % of the time it had work, so with Threads
// it counts 0.94 × 0.75 of a core and binds at 0.705 / 60 ms = 11.75/s,
// where a whole core's share would allow 15.67/s; / says why, and its
// cores alone (the MVA's) stay 0.94. Without Threads no run delay is read
// and the process keeps 0.94, with no figure alone.
func TestThreadWaitShrinksItsCore(t *testing.T) {
	load := splitLoad{n8n: 0.6, n8nWait: 0.2, host: 1.0, fixture: "inspect-lab-worker-1.json", threads: true}
	r, _ := splitReport(t, load, &scriptedProcs{})
	n8n := resourceOf(t, r, "cpu:fx-worker-1/n8n")
	if math.Abs(n8n.Servers-0.705) > 1e-9 || math.Abs(n8n.Ceiling-11.75) > 1e-6 || r.Bounds.Bottleneck() != n8n.Name || n8n.Alone != 0.94 {
		t.Fatalf("n8n %+v binding %s, want 0.705 cores (0.94 alone), 11.75/s, binding", n8n, r.Bounds.Bottleneck())
	}
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_resource_alone_servers"); n != 1 {
		t.Errorf("%d series of cores alone, want n8n's thread's", n)
	}
	hasLines(t, Verdict(r), "cpu:fx-worker-1/n8n: its thread waited for a core 25 % of the time it had work over the demand window (schedstat's run delay: other threads held the host's cores), so it counts 0.70 of a core, not 0.94")
	// A cgroup quota of 0.5 core, below the share: the resource and the
	// line count the quota.
	load.quota = 0.5
	r, _ = splitReport(t, load, &scriptedProcs{})
	if n8n := resourceOf(t, r, "cpu:fx-worker-1/n8n"); n8n.Servers != 0.5 || n8n.Alone != 0.5 {
		t.Fatalf("n8n under a 0.5-core quota: %+v, want 0.5 cores, alone too", n8n)
	}
	hasLines(t, Verdict(r), "cpu:fx-worker-1/n8n: its thread waited for a core 25 % of the time it had work over the demand window (schedstat's run delay: other threads held the host's cores), so it counts 0.50 of a core, not 0.94")
	load.quota, load.threads = 0, false
	r, _ = splitReport(t, load, &scriptedProcs{})
	if c := resourceOf(t, r, "cpu:fx-worker-1"); c.Servers != capacity.DefaultProcessCores || c.Alone != 0 {
		t.Fatalf("without Threads: %+v, want 0.94 cores and no figure alone", c)
	}
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_resource_alone_servers"); n != 0 {
		t.Errorf("without Threads: %d series of cores alone", n)
	}
	if text := strings.Join(Verdict(r), "\n"); strings.Contains(text, "waited for a core") {
		t.Errorf("a wait named without Threads:\n%s", text)
	}
}

// A thread with work all the time, waiting for a core 24 % of it: at
// 10/s it ran 0.76 of a core. 0.94 × its 76 % share would be 0.714, and
// a ceiling of 9.4/s below the 10/s it carried; it counts the 0.76 it ran,
// and binds at 10/s. Its cores alone stay 0.94.
func TestBusyThreadCountsWhatItRan(t *testing.T) {
	load := splitLoad{n8n: 0.76, n8nWait: 0.24, host: 1.0, fixture: "inspect-lab-worker-1.json", threads: true}
	r, _ := splitReport(t, load, &scriptedProcs{})
	n8n := resourceOf(t, r, "cpu:fx-worker-1/n8n")
	if math.Abs(n8n.Servers-0.76) > 1e-9 || math.Abs(n8n.Ceiling-10) > 1e-6 || n8n.Alone != 0.94 {
		t.Fatalf("n8n %+v, want the 0.76 cores it ran (0.94 alone), 10/s", n8n)
	}
}

// A worker with external runners holds one Node process. With Threads it
// is read apart into one resource, its n8n's main thread; not read apart,
// the container's total, and / says the ceiling reads low where n8n uses
// more threads. Without Threads it is not read apart and / says nothing.
func TestOneProcessContainer(t *testing.T) {
	load := splitLoad{n8n: 0.3, n8nThreads: 0.6, host: 1.2, fixture: "inspect-lab-worker-1.json", threads: true}
	r, _ := splitReport(t, load, &scriptedProcs{})
	if got := cpuNames(r); !slices.Equal(got, []string{"cpu:fx-worker-1/n8n", "cpu:host"}) {
		t.Fatalf("CPU resources %v, want the worker's n8n process and the host", got)
	}
	if n8n := resourceOf(t, r, "cpu:fx-worker-1/n8n"); math.Abs(n8n.Demand-0.03) > 1e-9 {
		t.Fatalf("n8n %+v, want its main thread's 30 ms", n8n)
	}
	r, _ = splitReport(t, load, nil)
	if c := resourceOf(t, r, "cpu:fx-worker-1"); math.Abs(c.Demand-0.09) > 1e-9 || c.Servers != capacity.DefaultProcessCores {
		t.Fatalf("container %+v, want its total's 90 ms on 0.94 cores", c)
	}
	hasLines(t, Verdict(r), "fx-worker-1: not read apart ("+whyNoProcRoot+"), so each container's total is one resource of 0.94 of a core: where n8n works on more threads than one (n8n 2.41), its ceiling reads low")
	load.threads = false
	procs := &scriptedProcs{}
	r, _ = splitReport(t, load, procs)
	if got := cpuNames(r); procs.calls != 0 || !slices.Equal(got, []string{"cpu:fx-worker-1", "cpu:host"}) {
		t.Fatalf("%d process readings, CPU resources %v: want none and the container", procs.calls, got)
	}
	if text := strings.Join(Verdict(r), "\n"); strings.Contains(text, "read apart") {
		t.Errorf("a split named:\n%s", text)
	}
}

// A runner's container, or a launcher's (the runners image: a Go launcher
// and its Node runner), read apart is one resource: its runner.
func TestRunnerContainerApart(t *testing.T) {
	for _, role := range []topology.Role{topology.RoleRunner, topology.RoleLauncher} {
		p := fixtureProcess(t, "inspect-lab-runner-1-1.json")
		p.Role = role
		c := capacity.ContainerCPU(p.Name)
		run := capacity.ProcessCPU(p.Name, capacity.ProcessRunner)
		v := cpuView{has: true, estimate: demand.Estimate{Demand: map[string]float64{run: 0.05, c: 0.06}},
			quota: map[string]float64{c: 0}, split: map[string]string{c: ""}}
		got := cpuResources(v, []topology.Process{p}, nil, capacity.DefaultProcessCores, hostSplit(v, []topology.Process{p}))
		if len(got) != 1 || got[0].Name != run || got[0].Demand != 0.05 {
			t.Fatalf("%s: %+v, want its runner at 50 ms", role, got)
		}
	}
}
