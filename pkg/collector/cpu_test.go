package collector

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/hostcpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
)

// cpuHost is a cgroup v1 tree and a /proc/stat the test advances: the
// counters a host shows while n8n runs a short workflow.
type cpuHost struct {
	t                *testing.T
	cgroupRoot, proc string
	ids              []string
}

func newCPUHost(t *testing.T, ids ...string) *cpuHost {
	h := &cpuHost{t: t, cgroupRoot: t.TempDir(), proc: t.TempDir(), ids: ids}
	for _, id := range ids {
		mustWrite(t, filepath.Join(h.cgroupRoot, "cpu", "docker", id, "cpu.cfs_quota_us"), "-1\n")
		mustWrite(t, filepath.Join(h.cgroupRoot, "cpu", "docker", id, "cpu.cfs_period_us"), "100000\n")
	}
	return h
}

// set writes each container's CPU seconds and the host's busy seconds.
func (h *cpuHost) set(cpu map[string]float64, hostBusy float64) { h.setStolen(cpu, hostBusy, 0) }

// setStolen is set with steal seconds, a part of hostBusy.
func (h *cpuHost) setStolen(cpu map[string]float64, hostBusy, steal float64) {
	for id, sec := range cpu {
		mustWrite(h.t, filepath.Join(h.cgroupRoot, "cpuacct", "docker", id, "cpuacct.usage"), fmt.Sprintf("%d\n", int64(sec*1e9)))
	}
	user, stolen := uint64((hostBusy-steal)*hostcpu.UserHZ), uint64(steal*hostcpu.UserHZ)
	mustWrite(h.t, filepath.Join(h.proc, "stat"), fmt.Sprintf("cpu  %d 0 0 100000 0 0 0 %d 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\n", user, stolen))
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Ten executions a second for 40 s, main spending 12 ms and the runner
// 3 ms of CPU on each, the host 34 ms in all: the host's 2 cores bind at
// 58.8/s, far below what the slots allow a 20 ms job. The verdict names
// the host's CPU with the split by role.
// cpuBoundReport is the lab report after 40 s of that load.
func cpuBoundReport(t *testing.T) *Report { return cpuLoadReport(t, 0, 0) }

// cpuLoadReport is that report with processCores set in the CPU config
// (0: the default), and steal of the host's busy 0.34 s a second
// stolen by the hypervisor.
func cpuLoadReport(t *testing.T, processCores, steal float64) *Report {
	rd := queuetest.StartMemory(t)
	ctx := context.Background()
	r := labReport(t) // fx-worker-1: 15 slots, runner 10, 3 s jobs → slots 3.3/s
	r.Measured = []ServiceTime{{Stage: "job", Source: "redis", Time: 20 * time.Millisecond}}
	r.Verdict, r.Used = nil, nil
	main, runner := r.Processes[0], r.Processes[2]
	host := newCPUHost(t, main.ID, runner.ID)
	c := New(Config{CPU: &CPUConfig{Executions: queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute),
		CPU: dockerstats.CgroupCPU{Reader: cgroup.NewReader(host.cgroupRoot)}, Host: func() (hostcpu.Times, error) { return hostcpu.Read(host.proc) },
		Window: 30 * time.Second, MinExecutions: 50, ProcessCores: processCores}})
	c.cpu.point(r.Processes)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for s := 0; s <= 40; s++ {
		rd.Client.Set(ctx, "bull:jobs:id", 10*s, 0)
		host.setStolen(map[string]float64{main.ID: 100 + 0.12*float64(s), runner.ID: 0.03 * float64(s)}, 1000+0.34*float64(s), steal*float64(s))
		c.cpu.step(ctx, t0.Add(time.Duration(s)*time.Second))
	}
	c.evaluate(r)
	c.bound(r)
	return r
}

func TestCPUBoundInReport(t *testing.T) {
	r := cpuBoundReport(t)
	if r.Bounds == nil || r.BoundsErr != "" {
		t.Fatalf("no bounds: %q", r.BoundsErr)
	}
	if got := r.Bounds.Bottleneck(); got != "cpu:host" || math.Abs(r.Ceiling()-2/0.034) > 1e-6 {
		t.Fatalf("bottleneck %s ceiling %v, want cpu:host at 58.8/s", got, r.Ceiling())
	}
	lines := strings.Join(Verdict(r), "\n")
	for _, want := range []string{"ceiling 58.8/s, set by the host's CPU: 2 cores, 34.0 ms per execution (main 12.0 ms, runner 3.0 ms, other 19.0 ms); slots would allow 500.0/s"} {
		if !strings.Contains(lines, want) {
			t.Fatalf("verdict lacks %q:\n%s", want, lines)
		}
	}
	want := `
# HELP n8n_cluster_bottleneck 1 for the resource whose ceiling is the cluster's, 0 for the others.
# TYPE n8n_cluster_bottleneck gauge
n8n_cluster_bottleneck{resource="cpu:fx-main"} 0
n8n_cluster_bottleneck{resource="cpu:fx-runner-1-1"} 0
n8n_cluster_bottleneck{resource="cpu:host"} 1
n8n_cluster_bottleneck{resource="slots:runner:fx-worker-1"} 0
n8n_cluster_bottleneck{resource="slots:worker:fx-worker-1"} 0
# HELP n8n_cluster_executions_total Executions completed, from Bull's job-id counter minus the jobs still queued; in regular mode from n8n's execution histogram count or the probes' completed tasks. The demand window divides CPU time by its increase.
# TYPE n8n_cluster_executions_total counter
n8n_cluster_executions_total 400
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_cluster_bottleneck", "n8n_cluster_executions_total"); err != nil {
		t.Fatal(err)
	}
}

// EXPORTER_PROCESS_CORES sets what each n8n container's CPU resource
// serves: at 0.01 of a core, main's 12 ms per execution binds at 0.83/s.
func TestCPUProcessCoresSetting(t *testing.T) {
	r := cpuLoadReport(t, 0.01, 0)
	main := resourceOf(t, r, "cpu:fx-main")
	if main.Servers != 0.01 || r.Bounds.Bottleneck() != "cpu:fx-main" || math.Abs(r.Ceiling()-0.01/0.012) > 1e-6 {
		t.Fatalf("main %+v, bottleneck %s ceiling %v; want 0.01 cores binding at 0.83/s", main, r.Bounds.Bottleneck(), r.Ceiling())
	}
	if def := resourceOf(t, cpuBoundReport(t), "cpu:fx-main"); def.Servers != capacity.DefaultProcessCores {
		t.Fatalf("default: main %+v, want %g cores", def, capacity.DefaultProcessCores)
	}
}

// A hypervisor that takes half the host's busy time (0.17 of its 0.34
// s a second) leaves each n8n process half a core's worth of 0.94: main's
// 12 ms per execution then binds at 39.2/s, below the host's 58.8/s,
// whose busy time already counts the steal. / says so.
func TestCPUStealShrinksEachProcess(t *testing.T) {
	r := cpuLoadReport(t, 0, 0.17)
	main, host := resourceOf(t, r, "cpu:fx-main"), resourceOf(t, r, "cpu:host")
	if math.Abs(main.Servers-0.47) > 1e-9 || host.Servers != 2 || math.Abs(host.Demand-0.034) > 1e-9 {
		t.Fatalf("main %+v host %+v: want main 0.47 cores, host 2 cores at 34 ms", main, host)
	}
	if r.Bounds.Bottleneck() != "cpu:fx-main" || math.Abs(r.Ceiling()-0.47/0.012) > 1e-6 {
		t.Fatalf("bottleneck %s ceiling %v, want cpu:fx-main at 39.2/s", r.Bounds.Bottleneck(), r.Ceiling())
	}
	lines := strings.Join(Verdict(r), "\n")
	if want := "the hypervisor took 50 % of the host's busy CPU time over the demand window (steal), so each n8n process counts 0.47 of a core, not 0.94"; !strings.Contains(lines, want) {
		t.Fatalf("verdict lacks %q:\n%s", want, lines)
	}
	if quiet := strings.Join(Verdict(cpuBoundReport(t)), "\n"); strings.Contains(quiet, "hypervisor") {
		t.Fatalf("no steal, yet the verdict names it:\n%s", quiet)
	}
}

// Before the window holds enough executions, and when the CPU sources
// fail, the ceiling is the slot bound, / says why, and the failing
// sources are down: the scrape goes on.
func TestCPUUnknownFallsBackToSlots(t *testing.T) {
	r, rd, host := labReport(t), queuetest.StartMemory(t), newCPUHost(t)
	ctx := context.Background()
	c := New(Config{CPU: &CPUConfig{Executions: queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute),
		CPU: dockerstats.CgroupCPU{Reader: cgroup.NewReader(host.cgroupRoot)}, Host: func() (hostcpu.Times, error) { return hostcpu.Read(host.proc) },
		Window: 30 * time.Second, MinExecutions: 50}})
	c.cpu.point(r.Processes)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for s := 0; s <= 5; s++ {
		rd.Client.Set(ctx, "bull:jobs:id", s, 0)
		c.cpu.step(ctx, t0.Add(time.Duration(s)*time.Second)) // no cgroup files, no /proc/stat
	}
	c.bound(r)
	if r.Bounds == nil || r.Bounds.Bottleneck() != "slots:runner:fx-worker-1" || math.Abs(r.Ceiling()-10.0/3) > 1e-9 {
		t.Fatalf("bounds %+v ceiling %v, want the runner slots at 3.3/s", r.Bounds, r.Ceiling())
	}
	up := map[string]bool{}
	for _, s := range r.Sources {
		up[s.Name] = s.Up
	}
	if !up["executions"] || up["cpu"] || up["procstat"] {
		t.Fatalf("sources %+v: want executions up, cpu and procstat down", r.Sources)
	}
	lines := strings.Join(Verdict(r), "\n")
	if !strings.Contains(lines, "CPU demand not measured yet (5 executions in the last 5s, fewer than 50), so the ceiling is the slot bound") {
		t.Fatalf("verdict does not say why CPU is left out:\n%s", lines)
	}
}

// A workflow of one execution every 2 s, the host spending 1.8 CPU
// seconds on each: the default 30 s window holds 15, fewer than the 30 a
// demand needs, so the window stretches back until it holds them, and
// the host's 2 cores bind at 1.1/s, below the slots' 3.3/s.
func TestCPUSlowWorkflowStretchesTheWindow(t *testing.T) {
	rd, host := queuetest.StartMemory(t), newCPUHost(t)
	c := New(Config{CPU: &CPUConfig{Executions: queue.NewSampler(queue.NewReader(rd.Client, "bull"), time.Second, time.Minute),
		Host: func() (hostcpu.Times, error) { return hostcpu.Read(host.proc) }}})
	ctx, t0 := context.Background(), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for s := 0; s <= 70; s++ {
		rd.Client.Set(ctx, "bull:jobs:id", s/2, 0)
		host.set(nil, 1000+0.9*float64(s/2*2))
		c.cpu.step(ctx, t0.Add(time.Duration(s)*time.Second))
	}
	r := labReport(t)
	c.bound(r)
	if r.CPU.Waiting != "" || r.CPU.Executions != 30 || r.CPU.Window != 59*time.Second {
		t.Fatalf("window %v, %v executions, waiting %q: want 30 executions over 59 s", r.CPU.Window, r.CPU.Executions, r.CPU.Waiting)
	}
	if r.Bounds == nil || r.Bounds.Bottleneck() != "cpu:host" || math.Abs(r.Ceiling()-2/1.8) > 1e-6 {
		t.Fatalf("bounds %+v ceiling %v, want the host's CPU at 1.1/s", r.Bounds, r.Ceiling())
	}
}
