package kube_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube/autoscale"
	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The setup of the side-by-side: one worker pod of concurrency 10 whose
// runner takes 2 tasks, 1 s Code tasks, 8 VUs. The worker takes all 8 jobs
// at once, so Bull's wait list stays empty while 6 of them wait for a
// runner slot inside the worker.
const (
	kedaVUs         = 8
	kedaTaskMS      = 1000
	kedaRunnerLimit = 2
	kedaMaxPods     = 5
	// kedaThreshold is the chart's keda.threshold, which up.sh keeps.
	kedaThreshold = 0.8
	// slotCycle is a runner slot's whole cycle per 1 s task (the task,
	// the offer and the accept), measured by the Docker suite's foundation
	// test at limits 2, 5 and 10 on both n8n versions.
	slotCycle = 1.01
	// sampleEvery is how often the test reads the Deployment, the HPA and
	// the exporter; Prometheus scrapes the exporter every 5 s too.
	sampleEvery = 5 * time.Second
	// throughputBin is the window of each sample's throughput.
	throughputBin = 10 * time.Second
	// queueLoad is how long the queue-length scaler is watched under load.
	queueLoad = 90 * time.Second
	// scaleOutWithin bounds the saturation scaler's first step: the HPA's
	// sync period (15 s) plus KEDA's polling interval (15 s) plus
	// Prometheus's scrape (5 s) and the 30 s rate window, rounded up.
	scaleOutWithin = 90 * time.Second
	// settleWithin bounds the whole scale-out: each HPA step needs a sync
	// and its pods about 20–40 s to start on two cores.
	settleWithin = 5 * time.Minute
	// steadyFor is how long desired and ready replicas must hold still
	// before the final window; steadyWindow is that window.
	steadyFor, steadyWindow = 30 * time.Second, 30 * time.Second
	// scaleInWithin bounds the return to one pod after the load stops: the
	// lab's 30 s stabilization window, the 30 s rate window, a 15 s sync
	// and the 15 s scale-down period, with room for the pods' shutdown.
	scaleInWithin = 3 * time.Minute
	// queueTolerance and saturationTolerance bound the measured
	// throughput against the ceiling it should sit at.
	queueTolerance, saturationTolerance = 0.05, 0.10
)

func kedaShape(mode string) map[string]string {
	return shape("KUBE_WORKERS", "1", "KUBE_WORKER_CONCURRENCY", "10", "KUBE_RUNNER_LIMIT", fmt.Sprint(kedaRunnerLimit),
		"KUBE_KEDA", mode, "KUBE_KEDA_MAX", fmt.Sprint(kedaMaxPods))
}

// TestKEDAScalesOnSaturationNotQueueLength runs real KEDA twice under the
// same load: n8n-hosting's queue-length ScaledObject leaves the workers at
// one pod and the throughput at that pod's ceiling; the chart's
// saturation ScaledObject scales them out until the load fits, and back
// when it stops.
func TestKEDAScalesOnSaturationNotQueueLength(t *testing.T) {
	podCeiling := kedaRunnerLimit / slotCycle
	n8nVersion := os.Getenv("KUBE_N8N_VERSION")
	if n8nVersion == "" {
		n8nVersion = envDefault(t, "KUBE_N8N_VERSION")
	}
	rec := &autoscale.Record{N8nVersion: n8nVersion, KEDAVersion: envDefault(t, "KEDA_VERSION"), VUs: kedaVUs,
		PodCeiling: podCeiling,
		Setup: fmt.Sprintf("Worker concurrency 10, runner limit %d per pod, %d ms Code tasks, a closed loop of %d VUs; "+
			"KEDA's pollingInterval 15 s, the HPA's sync 15 s, Prometheus scraping every 5 s.", kedaRunnerLimit, kedaTaskMS, kedaVUs)}
	defer saveRecord(t, rec)

	c, eps := needCluster(t, kedaShape("queue"))
	hook := endpoint(t, eps, "webhook")
	one := lab.ClosedLoop(context.Background(), hook, lab.BenchBody(kedaTaskMS, 0), 1, 2*time.Second, 10*time.Second)
	if one.OK == 0 || one.Failed > 0 {
		t.Fatalf("1 VU: %d passed, %d failed, e.g. %v", one.OK, one.Failed, one.Errors)
	}
	rec.Demand = kedaVUs / one.Mean.Seconds()
	t.Logf("1 VU: mean cycle %.3f s, so %d VUs want %.2f/s; one pod's ceiling %.2f/s", one.Mean.Seconds(), kedaVUs, rec.Demand, podCeiling)

	rec.Phases = append(rec.Phases, queuePhase(t, c, eps, podCeiling))
	_, eps = needCluster(t, kedaShape("saturation"))
	rec.Phases = append(rec.Phases, saturationPhase(t, c, eps, podCeiling, rec.Demand))
	for _, p := range rec.Phases {
		for _, ch := range p.Checks {
			if !ch.Pass {
				t.Errorf("%s: %s: %s", p.Name, ch.Name, ch.Detail)
			} else {
				t.Logf("%s: %s: %s", p.Name, ch.Name, ch.Detail)
			}
		}
	}
}

// queuePhase: 90 s of load under n8n-hosting's wait-list scaler.
func queuePhase(t *testing.T, c *labCluster, eps endpoints.Endpoints, podCeiling float64) autoscale.Phase {
	p := autoscale.Phase{Name: "queue", Scaler: "n8n-hosting's Redis list scaler on bull:jobs:wait, listLength 5", Bin: throughputBin.Seconds()}
	w := startWatch(t, c, eps, "keda-hpa-n8n-worker")
	load := w.startLoad(endpoint(t, eps, "webhook"))
	w.sampleUntil(&p, func(s autoscale.Sample) bool { return s.T >= queueLoad.Seconds() })
	load.stop()
	got := load.rate(load.start.Add(10*time.Second), load.start.Add(queueLoad))
	p.Add("every request passed", load.failed == 0, "%d passed, %d failed", len(load.passes), load.failed)
	maxWait := 0.0
	for _, s := range p.Samples {
		maxWait = max(maxWait, s.Waiting)
	}
	p.Add("stays at one pod", p.MaxReplicas(0) == 1, "desired replicas at most %d over %.0f s of load; Bull's wait list at most %.0f jobs",
		p.MaxReplicas(0), queueLoad.Seconds(), maxWait)
	p.Add("throughput at one pod's ceiling", within(got, podCeiling, queueTolerance),
		"%.3f/s from 10 s to %.0f s against %.3f/s (%+.1f%%, bound ±%.0f%%)", got, queueLoad.Seconds(), podCeiling,
		100*(got/podCeiling-1), 100*queueTolerance)
	return p
}

// saturationPhase: the same load under the chart's saturation scaler until
// the replicas hold still, a final window, then the load stops.
func saturationPhase(t *testing.T, c *labCluster, eps endpoints.Endpoints, podCeiling, demand float64) autoscale.Phase {
	p := autoscale.Phase{Name: "saturation", Scaler: "the chart's ScaledObject: throughput ÷ the workers' ceilings and jobs held ÷ effective concurrency, threshold 0.8",
		Bin: throughputBin.Seconds()}
	w := startWatch(t, c, eps, "keda-hpa-n8n-ceiling-workers")
	load := w.startLoad(endpoint(t, eps, "webhook"))
	steadySince := -1.0
	w.sampleUntil(&p, func(s autoscale.Sample) bool {
		n := len(p.Samples)
		if n < 2 || s.Ready != s.Replicas || p.Samples[n-2].Replicas != s.Replicas || s.Replicas == 1 {
			steadySince = -1
		} else if steadySince < 0 {
			steadySince = s.T
		}
		return (steadySince >= 0 && s.T-steadySince >= steadyFor.Seconds()) || s.T >= settleWithin.Seconds()
	})
	final := w.sampleFor(&p, steadyWindow)
	end := load.start.Add(time.Duration(final.T * float64(time.Second)))
	got := load.rate(end.Add(-steadyWindow), end)
	load.stop()
	p.Add("every request passed", load.failed == 0, "%d passed, %d failed", len(load.passes), load.failed)
	stopAt := final.T
	w.sampleUntil(&p, func(s autoscale.Sample) bool { return s.Replicas == 1 || s.T-stopAt >= scaleInWithin.Seconds() })

	out := p.FirstAbove(1)
	p.Add("scales out", out >= 0 && out <= scaleOutWithin.Seconds(), "desired replicas first above 1 at %.0f s (bound %.0f s); %d pods at the end of the load",
		out, scaleOutWithin.Seconds(), final.Ready)
	want := math.Min(float64(final.Ready)*podCeiling, demand)
	p.Add("throughput rises to the new ceiling", final.Ready > 1 && within(got, want, saturationTolerance),
		"%.3f/s over the last %.0f s against min(%d pods × %.2f/s, demand %.2f/s) = %.3f/s (%+.1f%%, bound ±%.0f%%)",
		got, steadyWindow.Seconds(), final.Ready, podCeiling, demand, want, 100*(got/want-1), 100*saturationTolerance)
	followsPods(&p, podCeiling)
	asksNoMore(&p, demand/podCeiling/kedaThreshold)
	p.Add("the exporter's ceiling at the end", final.Workers == final.Ready && within(final.Ceiling, float64(final.Ready)*podCeiling, saturationTolerance),
		"%d workers and a ceiling of %.2f/s (bound by %s) for %d ready pods (%.2f/s expected, ±%.0f%%)",
		final.Workers, final.Ceiling, final.Binding, final.Ready, float64(final.Ready)*podCeiling, 100*saturationTolerance)
	last := p.Samples[len(p.Samples)-1]
	p.Add("scales back in", last.Replicas == 1, "desired replicas %d at %.0f s after the load stopped (bound %.0f s)",
		last.Replicas, last.T-stopAt, scaleInWithin.Seconds())
	return p
}

// followsPods checks the exporter at every settled sample (all desired
// pods ready for one sample interval, 5 s, Prometheus's scrape): it shows
// exactly the ready pods, and their slots' ceiling. Samples where the
// cluster's ceiling sat below the slots' are counted with what bound them.
func followsPods(p *autoscale.Phase, podCeiling float64) {
	settled := p.Settled()
	var off []string
	below := map[string]int{}
	for _, i := range settled {
		s := p.Samples[i]
		want := float64(s.Ready) * podCeiling
		if s.Workers != s.Ready || !within(s.SlotCeiling, want, saturationTolerance) {
			off = append(off, fmt.Sprintf("%.0f s: %d workers, slots %.2f/s for %d pods", s.T, s.Workers, s.SlotCeiling, s.Ready))
		}
		if s.Ceiling > 0 && s.Ceiling < (1-saturationTolerance)*s.SlotCeiling {
			below[s.Binding]++
		}
	}
	p.Add("the exporter's slot ceiling follows the pods", len(settled) > 0 && len(off) == 0,
		"%d settled samples, %d off (±%.0f%% of ready pods × %.2f/s) %v; the cluster's ceiling below the slots' at %v",
		len(settled), len(off), 100*saturationTolerance, podCeiling, off, below)
}

// asksNoMore checks what the HPA wants at every settled sample under load
// (its metric per pod × the replicas ÷ its target) against the pods the
// load needs at the threshold, plus one for the rounding up: a trigger
// whose ceiling dips while new pods start would ask for more.
func asksNoMore(p *autoscale.Phase, need float64) {
	worst, at := 0.0, -1.0
	for _, i := range p.Settled() {
		s := p.Samples[i]
		if !s.Load || s.Target <= 0 {
			continue
		}
		if wants := s.Metric * float64(s.Replicas) / s.Target; wants > worst {
			worst, at = wants, s.T
		}
	}
	p.Add("asks for no more pods than the load needs", at >= 0 && worst <= need+1,
		"the HPA wanted at most %.2f pods (at %.0f s) once the pods were ready; the load needs %.2f at the threshold",
		worst, at, need)
}

func within(got, want, tol float64) bool { return want > 0 && math.Abs(got/want-1) <= tol }

// watch samples the worker Deployment, its HPA and the exporter.
type watch struct {
	t       *testing.T
	c       *labCluster
	metrics string
	hpa     string
	load    *loadRun
}

func startWatch(t *testing.T, c *labCluster, eps endpoints.Endpoints, hpa string) *watch {
	return &watch{t: t, c: c, metrics: endpoint(t, eps, "exporter-metrics"), hpa: hpa}
}

// sampleUntil appends a sample every sampleEvery until done says so.
func (w *watch) sampleUntil(p *autoscale.Phase, done func(autoscale.Sample) bool) autoscale.Sample {
	for {
		next := time.Now().Add(sampleEvery)
		s := w.sample()
		p.Samples = append(p.Samples, s)
		if done(s) {
			return s
		}
		time.Sleep(time.Until(next))
	}
}

// sampleFor samples for d more and returns the last sample.
func (w *watch) sampleFor(p *autoscale.Phase, d time.Duration) autoscale.Sample {
	until := time.Since(w.load.start) + d
	return w.sampleUntil(p, func(autoscale.Sample) bool { return time.Since(w.load.start) >= until })
}

func (w *watch) sample() autoscale.Sample {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := time.Now()
	s := autoscale.Sample{T: now.Sub(w.load.start).Seconds(), Load: !w.load.stopped(),
		Throughput: w.load.rate(now.Add(-throughputBin), now)}
	var dep struct {
		Spec   struct{ Replicas int }
		Status struct{ ReadyReplicas int }
	}
	if err := kube.GetJSON(ctx, w.c.admin, w.c.api+"/apis/apps/v1/namespaces/"+namespace+"/deployments/n8n-worker", &dep); err != nil {
		w.t.Fatalf("reading the worker Deployment: %v", err)
	}
	s.Replicas, s.Ready = dep.Spec.Replicas, dep.Status.ReadyReplicas
	s.Metric, s.Target = w.hpaMetric(ctx)
	if snap, err := (&snapshot.Reader{URL: w.metrics}).Read(ctx); err == nil {
		s.Workers, s.Waiting, s.Active = len(snap.Workers), snap.Queue["waiting"], snap.Queue["active"]
		if snap.Cluster.Ceiling.OK {
			s.Ceiling = snap.Cluster.Ceiling.Value
		}
		for _, wk := range snap.Workers {
			s.SlotCeiling += wk.Ceiling.Value
		}
		for _, r := range snap.Resources {
			if r.Binding {
				s.Binding = r.Name
			}
		}
	} else {
		w.t.Logf("exporter at %.0f s: %v", s.T, err)
	}
	return s
}

// hpaMetric is the HPA's highest current external metric (per pod) and
// that metric's target; zeros while KEDA has not made the HPA yet.
func (w *watch) hpaMetric(ctx context.Context) (cur, target float64) {
	var hpa struct {
		Spec struct {
			Metrics []struct {
				External struct {
					Target struct{ AverageValue string } `json:"target"`
				} `json:"external"`
			} `json:"metrics"`
		} `json:"spec"`
		Status struct {
			CurrentMetrics []struct {
				External struct {
					Current struct{ AverageValue string } `json:"current"`
				} `json:"external"`
			} `json:"currentMetrics"`
		} `json:"status"`
	}
	if kube.GetJSON(ctx, w.c.admin, w.c.api+"/apis/autoscaling/v2/namespaces/"+namespace+"/horizontalpodautoscalers/"+w.hpa, &hpa) != nil {
		return 0, 0
	}
	for i, m := range hpa.Status.CurrentMetrics {
		if v := quantity(m.External.Current.AverageValue); v >= cur {
			cur = v
			if i < len(hpa.Spec.Metrics) {
				target = quantity(hpa.Spec.Metrics[i].External.Target.AverageValue)
			}
		}
	}
	return cur, target
}

func quantity(s string) float64 {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0
	}
	return q.AsApproximateFloat64()
}

// startLoad starts the closed loop: kedaVUs VUs posting 1 s tasks until
// stop, bounded by settleWithin and the phases' windows.
func (w *watch) startLoad(hook string) *loadRun {
	target, err := lab.BenchTarget(hook, lab.BenchBody(kedaTaskMS, 0), kedaVUs, time.Minute)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &loadRun{start: time.Now(), cancel: cancel, done: make(chan struct{})}
	sw := &loadgen.Sweep{
		Plan:     loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{kedaVUs}), Step: 10 * time.Minute},
		Target:   target,
		Observer: r,
	}
	go func() {
		defer close(r.done)
		if _, err := sw.Run(ctx); err != nil {
			w.t.Errorf("load: %v", err)
		}
	}()
	w.load = r
	return r
}

// loadRun keeps when each request passed, so any window's throughput
// (passes ÷ window) can be read while it runs.
type loadRun struct {
	start  time.Time
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	passes []time.Time
	failed int
	ended  bool
}

func (r *loadRun) StepStarted(int, loadgen.Step) {}
func (r *loadRun) InFlight(int64)                {}
func (r *loadRun) SweepDone()                    {}

func (r *loadRun) Result(_ time.Duration, o loadgen.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o == loadgen.OutcomePass {
		r.passes = append(r.passes, time.Now())
	} else if !r.ended {
		r.failed++
	}
}

func (r *loadRun) rate(from, to time.Time) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, at := range r.passes {
		if at.After(from) && !at.After(to) {
			n++
		}
	}
	return float64(n) / to.Sub(from).Seconds()
}

func (r *loadRun) stopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

// stop cancels the load and waits for its VUs to return.
func (r *loadRun) stop() {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.cancel()
	<-r.done
}

// envDefault is the value env.sh gives name: `NAME=value` or
// `: "${NAME:=value}"`.
func envDefault(t *testing.T, name string) string {
	b, err := os.ReadFile("env.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			return strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(l, `: "${`+name+`:=`); ok {
			return strings.TrimSuffix(v, `}"`)
		}
	}
	t.Fatalf("env.sh sets no %s", name)
	return ""
}

// saveRecord writes keda.json and keda.html into E2E_RESULTS when it is
// set (make results sets docs/results).
func saveRecord(t *testing.T, rec *autoscale.Record) {
	dir := os.Getenv("E2E_RESULTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(filepath.Join(dir, "keda.json")); err != nil {
		t.Error(err)
	}
	var b bytes.Buffer
	if err := rec.HTML(&b); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keda.html"), b.Bytes(), 0o644); err != nil {
		t.Error(err)
	}
}

// env.sh's KEDA_VERSION (the images' tag, the version the binaries
// report) is the one the build module requires.
func TestEnvDefault(t *testing.T) {
	mod, err := os.ReadFile("build/keda/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if v := envDefault(t, "KEDA_VERSION"); !strings.Contains(string(mod), "\nrequire github.com/kedacore/keda/v2 v"+v+"\n") {
		t.Errorf("KEDA_VERSION %q is not what build/keda/go.mod requires", v)
	}
	if v := envDefault(t, "KUBE_N8N_VERSION"); !strings.HasPrefix(v, "2.") {
		t.Errorf("KUBE_N8N_VERSION %q", v)
	}
}

// Two recorded runs of this test: the throughput trigger dividing by the
// cluster's ceiling (which cpu:host set while the new pods started) asked
// for 9.5 pods; dividing by the workers' own ceilings, 5.
func TestAsksNoMoreOnRecordedRuns(t *testing.T) {
	for file, pass := range map[string]bool{"keda-cluster-ceiling.json": false, "keda-worker-ceilings.json": true} {
		rec, err := autoscale.Load(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		p := rec.Phases[1]
		p.Checks = nil
		asksNoMore(&p, rec.Demand/rec.PodCeiling/kedaThreshold)
		if c := p.Checks[0]; c.Pass != pass {
			t.Errorf("%s: %s passed %v, want %v: %s", file, c.Name, c.Pass, pass, c.Detail)
		}
	}
}
