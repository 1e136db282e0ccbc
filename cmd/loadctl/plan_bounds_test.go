package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

var cpuBoundArgs = []string{"--worker-concurrency", "15", "--runner-limit", "20", "--job-time", "87.4ms", "--task-time", "20ms",
	"--cpu", "main=12ms,worker=9ms,runner=3ms,other=10ms", "--cores", "2"}

// The CPU-bound lab: 34 ms of host CPU per execution on 2 cores
// binds at 58.8/s while the slots would allow 171.6/s; each process is a
// resource of capacity.DefaultProcessCores; other counts only towards the host.
func TestPlanCPUBoundTable(t *testing.T) {
	r := planJSON(t, cpuBoundArgs...)
	b := r.Bounds
	if b == nil || b.Ceiling == nil || math.Abs(*b.Ceiling-2/0.034) > 1e-9 || len(b.Binding) != 1 || b.Binding[0] != "cpu:host" ||
		b.SlotCeiling == nil || math.Abs(*b.SlotCeiling-15/0.0874) > 1e-9 || b.Cores != 2 {
		t.Fatalf("bounds %+v", b)
	}
	want := map[string][2]float64{"slots:worker:worker": {15, 0.0874}, "slots:runner:worker": {20, 0.02}, "cpu:host": {2, 0.034},
		"cpu:main": {capacity.DefaultProcessCores, 0.012}, "cpu:worker": {capacity.DefaultProcessCores, 0.009}, "cpu:runner": {capacity.DefaultProcessCores, 0.003}}
	if len(b.Resources) != len(want) {
		t.Fatalf("resources %+v", b.Resources)
	}
	for _, res := range b.Resources {
		w, ok := want[res.Name]
		if !ok || res.Servers != w[0] || res.Demand == nil || math.Abs(*res.Demand-w[1]) > 1e-12 || res.Binding != (res.Name == "cpu:host") {
			t.Errorf("resource %+v, want servers %v demand %v", res, w[0], w[1])
		}
	}
	_, text, _ := runArgs(t, append([]string{"plan"}, cpuBoundArgs...)...)
	for _, s := range []string{"cpu:host             2        34ms    58.82/s    ◀ binds", "ceiling 58.82/s, set by cpu:host; slots alone would allow 171.62/s"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}

// The curve is capacity.Overlapping's from N = 1 to twice the knee
// N* = latency × ceiling, the latency being the longest hold by default;
// a longer --vus extends it.
func TestPlanMVACurve(t *testing.T) {
	m := planJSON(t, cpuBoundArgs...).MVA
	knee := 0.0874 * 2 / 0.034
	if m == nil || m.LatencySeconds != 0.0874 || m.LatencySource != "the longest hold" || math.Abs(m.KneeVUs-knee) > 1e-9 ||
		len(m.Points) != int(math.Ceil(2*knee)) {
		t.Fatalf("mva %+v", m)
	}
	net := capacity.Network{Stations: []capacity.Station{{Name: "slots:worker:worker", Servers: 15, Demand: 0.0874},
		{Name: "slots:runner:worker", Servers: 20, Demand: 0.02}, {Name: "cpu:host", Servers: 2, Demand: 0.034},
		{Name: "cpu:main", Servers: capacity.DefaultProcessCores, Demand: 0.012}, {Name: "cpu:worker", Servers: capacity.DefaultProcessCores, Demand: 0.009},
		{Name: "cpu:runner", Servers: capacity.DefaultProcessCores, Demand: 0.003}}}
	lib, _ := capacity.Overlapping(net, 0.0874, len(m.Points))
	for i, p := range m.Points {
		if p.VUs != i+1 || math.Abs(p.ThroughputPerS-lib[i].Throughput) > 1e-6 || math.Abs(p.ResponseSeconds-lib[i].Response) > 1e-9 ||
			p.LargestQueue != lib[i].Largest || p.BoundPerS > math.Min(float64(p.VUs)/0.0874, 2/0.034)+1e-9 {
			t.Errorf("point %+v, library %+v", p, lib[i])
		}
	}
	long := planJSON(t, append([]string{"--latency", "120ms", "--vus", "60"}, cpuBoundArgs...)...).MVA
	last := long.Points[len(long.Points)-1]
	if long.LatencySource != "--latency" || long.LatencySeconds != 0.12 || last.VUs != 60 || last.LargestQueue != "cpu:host" ||
		math.Abs(last.ThroughputPerS-2/0.034) > 0.01*2/0.034 {
		t.Errorf("with --latency and --vus 60: %+v, last %+v", long, last)
	}
}

// Past twenty rows the text shows every k-th VU count, the ones asked for
// and the last.
func TestPlanMVATextThinsLongCurves(t *testing.T) {
	_, text, _ := runArgs(t, "plan", "--cpu", "main=12ms,other=20ms", "--cores", "2", "--vus", "61")
	rows := map[string]bool{}
	_, table, ok := strings.Cut(text, "VUs  ")
	if !ok {
		t.Fatalf("no MVA table:\n%s", text)
	}
	for _, l := range strings.Split(table, "\n")[1:] {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(l, "throughput") {
			rows[f[0]] = true
		}
	}
	for _, n := range []string{"1", "20", "24", "60", "61"} {
		if !rows[n] {
			t.Errorf("row %s missing:\n%s", n, text)
		}
	}
	if rows["21"] || len(rows) > 45 {
		t.Errorf("%d rows, want the curve thinned past 20:\n%s", len(rows), text)
	}
}

// --process-cores sets each named process's CPU: the runner's 3 ms on half
// a core allow 166.7/s (the host still binds, at 58.8/s).
func TestPlanProcessCores(t *testing.T) {
	r := planJSON(t, append([]string{"--process-cores", "0.5"}, cpuBoundArgs...)...)
	i := slices.IndexFunc(r.Bounds.Resources, func(res resourceJSON) bool { return res.Name == "cpu:runner" })
	if i < 0 {
		t.Fatalf("no cpu:runner in %+v", r.Bounds.Resources)
	}
	if res := r.Bounds.Resources[i]; res.Servers != 0.5 || res.Ceiling == nil || math.Abs(*res.Ceiling-0.5/0.003) > 1e-9 {
		t.Fatalf("runner %+v, want 0.5 cores and 166.7/s", res)
	}
}

func TestPlanDemandFlagsNameTheFlag(t *testing.T) {
	cpu := []string{"--cpu", "main=12ms,other=10ms", "--cores", "2"}
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"-cpu", []string{"plan", "--cpu", "main", "--cores", "2"}},
		{"-cpu", []string{"plan", "--cpu", "main=-1ms", "--cores", "2"}},
		{"-cpu", []string{"plan", "--cpu", "main=1ms,main=2ms", "--cores", "2"}},
		{"--cpu", []string{"plan", "--cpu", "host=1ms", "--cores", "2"}},
		{"--cores", []string{"plan", "--cpu", "main=1ms"}},
		{"--cores", []string{"plan", "--worker-concurrency", "5", "--runner-limit", "3", "--cores", "2"}},
		{"--latency", append([]string{"plan", "--latency", "1ms"}, cpu...)},
		{"--latency", append([]string{"plan", "--latency", "-1s"}, cpu...)},
		{"--latency", []string{"plan", "--worker-concurrency", "5", "--runner-limit", "3", "--latency", "1s"}},
		{"--vus", append([]string{"plan", "--vus", "20000"}, cpu...)},
		{"--process-cores", append([]string{"plan", "--process-cores", "0"}, cpu...)},
		{"--process-cores", append([]string{"plan", "--process-cores", "3"}, cpu...)},
	} {
		code, _, errs := runArgs(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.flag) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", tc.args, code, errs, tc.flag)
		}
		t.Logf("%v: %s", tc.args[1:], strings.SplitN(errs, "\n", 2)[0])
	}
}
