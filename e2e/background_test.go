package e2e

import (
	"context"
	"errors"
	"math"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// TestOtherWorkOnTheHost: a busy loop of one core beside n8n (a real
// process on the host, started and stopped by PID: other work, as a build
// or a backup would be) lowers the cores cpu:host counts instead of
// passing for n8n's demand. Worker 15, runner limit 3, lab.ClosedLoop's
// load, the hog running through the first two loads:
//   - 2 VUs of 1 s tasks (light: the runner slots allow 3/s): the runner
//     slots bind, and the background series holds the hog's core: it
//     reads 1 ± 0.3 cores above the rest of the other work the test
//     itself read from /proc over the same window;
//   - 24 VUs of 0 ms tasks saturate the host: the measured throughput is
//     within 10 % of the published ceiling (the mean of saturatedReads);
//   - the hog stopped, 2 VUs of 1 s tasks again: the runner slots bind,
//     the ceiling is within 3 % of the one with the hog, and the
//     background is within 0.3 of a core of the other work read.
//
// The peer (hostwork_test.go) sums, process by process, the CPU of
// everything outside the lab's containers and its PostgreSQL and Redis,
// and the kernel's irq, softirq and steal. On a quiet host here it read
// 0.05 to 0.13 of a core once the hog had stopped, and the background
// 0.02 to 0.07 (six runs). A shared host is not quiet: one CI run read a
// background of 0.54 cores there, where this test then assumed about
// zero. The exporter is right to count such work; the test checks that it
// counts what is there.
//
// The exporter's windows are 15 s (LAB_WINDOW), and each reading is taken
// inside a load's step, 15 s or more after a 10 s warm-up (loadAndRead), so
// it holds that load alone: the hog's whole, or none of it. The probe's
// task mean spans the same 15 s, so after the 0 ms tasks it holds the
// 1 s tasks alone (a mean that still held the 0 ms tasks would put the
// runner slots' ceiling above the worker's).
//
// Runner limit 3, not 5: an execution of a 1 s task took 169 to 197 ms
// of n8n's CPU here at 2.6-2.8/s, so beside a one-core hog the host's
// remaining 0.8-0.95 of a core allowed 4.2 to 4.9/s, and the runner slots'
// 4.8-4.95/s tied with it (two runs of e2e-repeat: one read cpu:host as
// the binding resource, one the runner slots by 1.6 %). At limit 3 the
// slots allow about 2.9/s, well below the host's 3.4 to 5.6/s with the
// hog, and the light-load ceiling moved 0.6 to 1.3 % with it (three runs).
func TestOtherWorkOnTheHost(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "3", "LAB_PROBE": "1", "LAB_WINDOW": "15s"})
	hook, metrics := must(t, eps, "webhook"), must(t, eps, "exporter-metrics")
	ids := map[string]bool{}
	for _, id := range containerIDs(t) {
		ids[id] = true
	}
	hog := startHog(t)
	busy := lightLoad(t, hook, metrics, ids, "hog")
	hogCores := busy.before.of(busy.after, hog.Process.Pid)
	shown := busy.background - (busy.other.cores - hogCores)
	t.Logf("hog: it ran %.3f cores; background %.3f cores, other work seen %.3f cores (the hog's included)", hogCores, busy.background, busy.other.cores)
	figure(t, "background with the hog, less other work seen but the hog, cores", "1 ± 0.3", shown, math.Abs(shown-1) <= 0.3)
	if math.Abs(shown-1) > 0.3 {
		t.Errorf("background %.2f cores with a one-core hog beside %.2f cores of other work seen, want the hog's 1 ± 0.3 in it", busy.background, busy.other.cores-hogCores)
	}

	res, reads := loadAndRead(t, hook, metrics, lab.BenchBody(0, 0), 24, saturatedReads)
	var ceilings []float64
	for _, s := range reads {
		ceilings = append(ceilings, s.one(t, "n8n_cluster_ceiling_executions_per_second"))
	}
	ceiling, s := mean(ceilings), reads[len(reads)-1]
	ratio := res.PerSec / ceiling
	t.Logf("hog, 24 VU of 0 ms tasks: %.2f/s (%d failed), ceiling %.2f/s (ratio %.3f; each second %.2f), at the end: background %s, bottleneck %s, servers %s, demand %s",
		res.PerSec, res.Failed, ceiling, ratio, ceilings, s.describe("n8n_resource_background_servers"), s.describe("n8n_cluster_bottleneck"),
		s.describe("n8n_resource_servers"), s.describe("n8n_resource_demand_seconds"))
	figure(t, "saturated with the hog: measured ÷ ceiling", "1 ± 0.10", ratio, math.Abs(ratio-1) <= 0.10)
	if math.Abs(ratio-1) > 0.10 {
		t.Errorf("measured %.2f/s against a ceiling of %.2f/s with the hog (%.3f), want within 10 %%", res.PerSec, ceiling, ratio)
	}

	stopHog(t, hog)
	quiet := lightLoad(t, hook, metrics, ids, "hog stopped")
	withHog, without := busy.one(t, "n8n_cluster_ceiling_executions_per_second"), quiet.one(t, "n8n_cluster_ceiling_executions_per_second")
	moved := math.Abs(withHog-without) / without
	figure(t, "light load: ceiling with the hog ÷ without, off 1", "≤ 0.03", moved, moved <= 0.03)
	if moved > 0.03 {
		t.Errorf("ceiling %.3f/s with the hog, %.3f/s without: moved %.1f %%, want under 3 %%", withHog, without, 100*moved)
	}
	left := quiet.background - quiet.other.cores
	figure(t, "background after the hog, less other work seen, cores", "± 0.3", left, math.Abs(left) < 0.3)
	if math.Abs(left) >= 0.3 {
		t.Errorf("background %.2f cores once the hog stopped, against %.2f cores of other work seen (%s), want within 0.3", quiet.background, quiet.other.cores, quiet.other.top(5))
	}
}

// saturatedReads is how many readings of the ceiling, a second apart,
// the saturated check averages. With 15 worker slots full, the ceiling
// is the rate the exporter counted over its window: Bull's jobs done
// (the worker slots' 15 ÷ job time, and the worker's thread, held at
// least at the cores it ran, both read it). Beside the hog that count
// and loadctl's responses part by up to a second of lag: in one 15 s
// step Bull's count of jobs done rose by 94 while loadctl counted 101
// responses, and one reading put the ceiling at 5.62/s against 6.59/s
// measured (1.17). A job time held while the runner was full moves a
// reading too (7.11/s for four seconds while the rate read 8.1). The mean
// of ten readings over the step's last 9 s read 0.984 to 1.039 ×
// measured in nine runs.
const saturatedReads = 10

// lightReading is the exporter's reading at a light load's end, its
// background, and the host's work the test read at the window's start
// and end.
type lightReading struct {
	scrape
	background    float64 // n8n_resource_background_servers of cpu:host
	before, after hostWork
	other         otherWork
}

// lightLoad runs 2 VUs of 1 s tasks for 15 s after 3 s, checks that
// none failed and that the runner slots bind, and returns the exporter's
// reading at its end beside the host's other work read from /proc over the
// same window (ids: the lab's containers). It logs cpu:host's ceiling
// beside what counting the background as n8n's demand would have made it.
func lightLoad(t *testing.T, hook, metrics string, ids map[string]bool, tag string) lightReading {
	t.Helper()
	peer := readHostWorkAt(ids, time.Now().Add(loadWarmup), time.Now().Add(loadWarmup+loadWindow))
	res, ss := loadAndRead(t, hook, metrics, lab.BenchBody(1000, 0), 2, 1)
	r := <-peer
	if r.err != nil {
		t.Fatalf("%s: read /proc: %v", tag, r.err)
	}
	s := ss[0]
	host := []string{"resource", "cpu:host"}
	m, d, b := s.one(t, "n8n_resource_servers", host...), s.one(t, "n8n_resource_demand_seconds", host...), s.one(t, "n8n_resource_background_servers", host...)
	other := otherBetween(r.a, r.b)
	t.Logf("%s: 2 VU of 1 s tasks, %.2f/s (%d failed); ceiling %.2f/s; cpu:host %.2f cores at %.1f ms: %.1f/s (with the background as demand: %.1f/s); background %.3f cores, other work seen %.3f cores: %s",
		tag, res.PerSec, res.Failed, s.one(t, "n8n_cluster_ceiling_executions_per_second"), m, 1000*d, m/d, (m+b)/(d+b/res.PerSec), b, other.cores, other.top(5))
	if res.Failed != 0 {
		t.Errorf("%s: %d failed requests, e.g. %v", tag, res.Failed, res.Errors)
	}
	if s.one(t, "n8n_cluster_bottleneck", "resource", "slots:runner:n8n-lab-worker-1") != 1 {
		t.Errorf("%s: the runner slots do not bind (%s)", tag, s.describe("n8n_cluster_bottleneck"))
	}
	return lightReading{scrape: s, background: b, before: r.a, after: r.b, other: other}
}

// hostWorkSpan is two readings of the host's work, or why one failed.
type hostWorkSpan struct {
	a, b hostWork
	err  error
}

// readHostWorkAt reads the host's work at from and at to, in the
// background.
func readHostWorkAt(ids map[string]bool, from, to time.Time) <-chan hostWorkSpan {
	out := make(chan hostWorkSpan, 1)
	go func() {
		var r hostWorkSpan
		time.Sleep(time.Until(from))
		r.a, r.err = readHostWork(ids)
		time.Sleep(time.Until(to))
		b, err := readHostWork(ids)
		r.b, r.err = b, errors.Join(r.err, err)
		out <- r
	}()
	return out
}

// loadWarmup and loadWindow are loadAndRead's warm-up and the exporter's
// window on this lab (LAB_WINDOW). The exporter's CPU demand needs 30
// executions in its window, and 2 VUs of 1 s tasks run 1.55 to 1.9/s:
// 23 to 28 in 15 s, so the window reaches back up to 4.5 s into the
// warm-up. On a lab just up, the exporter has counted nothing before the
// load: after a 3 s warm-up it had counted 29 (two runs), and the demand
// was unknown.
const loadWarmup, loadWindow = 10 * time.Second, 15 * time.Second

// loadAndRead runs vus closed-loop VUs of body after a warm-up for
// a step of 15 s plus reads−1 seconds, and reads the exporter once a
// second over the step's last reads−1 seconds, the last read at its end,
// while the VUs' last requests are still in flight. Each read's 15 s
// window then lies inside the step, less up to one sample interval (1 s).
// Read after the loop returns, the window held the drain instead of the
// step's first seconds.
func loadAndRead(t *testing.T, hook, metrics string, body []byte, vus, reads int) (lab.DriveResult, []scrape) {
	t.Helper()
	step := loadWindow + time.Duration(reads-1)*time.Second
	type reading struct {
		s   []scrape
		err error
	}
	read := make(chan reading, 1)
	go func(first time.Time) {
		var r reading
		for i := range reads {
			time.Sleep(time.Until(first.Add(time.Duration(i) * time.Second)))
			s, err := fetchScrape(metrics)
			r.s, r.err = append(r.s, s), errors.Join(r.err, err)
		}
		read <- r
	}(time.Now().Add(loadWarmup + loadWindow))
	res := lab.ClosedLoop(context.Background(), hook, body, vus, loadWarmup, step)
	r := <-read
	if r.err != nil {
		t.Fatal(r.err)
	}
	return res, r.s
}

// startHog starts a shell busy loop, one core of other work on the host;
// the test stops it by PID.
func startHog(t *testing.T) *exec.Cmd {
	t.Helper()
	hog := exec.Command("sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatalf("start the CPU hog: %v", err)
	}
	t.Cleanup(func() { stopHog(t, hog) })
	return hog
}

func stopHog(t *testing.T, hog *exec.Cmd) {
	t.Helper()
	if hog.ProcessState != nil {
		return
	}
	if err := hog.Process.Signal(syscall.SIGKILL); err != nil {
		t.Errorf("stop the CPU hog (PID %d): %v", hog.Process.Pid, err)
	}
	_ = hog.Wait()
}
