package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func planJSON(t *testing.T, args ...string) planResult {
	t.Helper()
	code, out, errs := runArgs(t, append([]string{"plan", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r planResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	return r
}

func TestPlanSeedIsolationTable(t *testing.T) {
	r := planJSON(t, "--worker-concurrency", "15", "--vary-runner-limit", "20,10,5,2", "--service-time", "3s")
	want := []struct {
		ceiling    float64
		bottleneck string
	}{{5.00, "worker"}, {3.33, "runner"}, {1.67, "runner"}, {0.67, "runner"}}
	if len(r.Variations) != len(want) {
		t.Fatalf("got %d variations", len(r.Variations))
	}
	for i, w := range want {
		v := r.Variations[i]
		if math.Abs(*v.CeilingPerSecond-w.ceiling) > 0.005 || v.Bottleneck != w.bottleneck {
			t.Errorf("limit %v: %.3f %s, want %.2f %s", v.RunnerLimits, *v.CeilingPerSecond, v.Bottleneck, w.ceiling, w.bottleneck)
		}
	}
	_, text, _ := runArgs(t, "plan", "--worker-concurrency", "15", "--vary-runner-limit", "20,10,5,2", "--service-time", "3s")
	for _, s := range []string{"5.00/s", "3.33/s", "1.67/s", "0.67/s"} {
		if !strings.Contains(text, s) {
			t.Errorf("table lacks %s:\n%s", s, text)
		}
	}
}

func TestPlanClosedLoopAndFormula(t *testing.T) {
	args := []string{"--worker-concurrency", "15", "--runner-limit", "10", "--service-time", "3s", "--vus", "20"}
	r := planJSON(t, args...)
	c, p := r.Cluster, r.Predictions[0]
	if c.Effective != 10 || c.Bottleneck != "runner" || math.Abs(*c.CeilingPerSecond-10.0/3) > 1e-9 {
		t.Fatalf("cluster %+v", c)
	}
	if p.VUs != 20 || math.Abs(p.MeanLatencySeconds-6) > 1e-6 || p.QueueWait != 5 {
		t.Fatalf("prediction %+v", p)
	}
	_, text, _ := runArgs(t, append([]string{"plan"}, args...)...)
	for _, s := range []string{"min(runner 10, worker 15)", "3.33/s (200.0/min)", "6.00s", "max(0, VUs − worker concurrency)"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}

func TestPlanSeveralRunners(t *testing.T) {
	r := planJSON(t, "--worker-concurrency", "15", "--runner-limit", "10,10", "--service-time", "3s")
	if r.Cluster.RunnerCapacity != 20 || r.Cluster.Effective != 15 || r.Cluster.Bottleneck != "worker" {
		t.Fatalf("%+v", r.Cluster)
	}
}

func TestPlanTarget(t *testing.T) {
	r := planJSON(t, "--target-rps", "8", "--service-time", "3s")
	s := r.Sizing
	if s == nil || s.Slots != 24 || s.Pairs != 3 || s.RunnerLimit != 8 || s.WorkerConcurrency != 8 || s.CeilingPerSecond < 8 {
		t.Fatalf("sizing %+v", s)
	}
	r = planJSON(t, "--breaking-point", "120")
	if r.Operating == nil || math.Abs(r.Operating.OperatingPoint-80) > 1e-9 {
		t.Fatalf("operating %+v", r.Operating)
	}
}

func TestPlanBadFlagsNameTheFlag(t *testing.T) {
	cases := map[string][]string{
		"-worker-concurrency":  {"plan", "--worker-concurrency", "x"},
		"--worker-concurrency": {"plan", "--worker-concurrency", "-2", "--runner-limit", "3"},
		"-runner-limit":        {"plan", "--worker-concurrency", "5", "--runner-limit", "0"},
		"--runner-limit":       {"plan", "--worker-concurrency", "5"},
		"--service-time":       {"plan", "--target-rps", "8"},
		"--target-rps":         {"plan", "--target-rps", "-1", "--service-time", "3s"},
		"--breaking-point":     {"plan", "--breaking-point", "-5"},
		"--vus":                {"plan", "--worker-concurrency", "5", "--runner-limit", "3", "--vus", "4"},
		"--job-time":           {"plan", "--worker-concurrency", "5", "--runner-limit", "3", "--job-time", "1s"},
	}
	for flagName, args := range cases {
		code, _, errs := runArgs(t, args...)
		if code != exitUsage || !strings.Contains(errs, flagName) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", args, code, errs, flagName)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, errs := runArgs(t, "nope"); code != exitUsage || !strings.Contains(errs, `"nope"`) {
		t.Fatalf("exit %d %q", code, errs)
	}
}
