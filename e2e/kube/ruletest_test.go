package kube

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"gopkg.in/yaml.v3"
)

// page is a scrape in the exporter's shape: a worker with a runner, one
// without, a histogram and a NaN.
const page = `# TYPE n8n_worker_runner_capacity gauge
n8n_worker_runner_capacity{worker="n8n/w-1"} 4
n8n_worker_runner_capacity{worker="n8n/w-2"} 0
# TYPE n8n_runner_task_duration_seconds histogram
n8n_runner_task_duration_seconds_bucket{probe="p",le="1"} 3
n8n_runner_task_duration_seconds_bucket{probe="p",le="+Inf"} 4
n8n_runner_task_duration_seconds_sum{probe="p"} 4.5
n8n_runner_task_duration_seconds_count{probe="p"} 4
# TYPE n8n_cluster_ceiling_executions_per_second gauge
n8n_cluster_ceiling_executions_per_second NaN
`

func rulesFile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../compose/prometheus/rules/n8n-ceiling.yml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeRuleTest(t *testing.T, rt RuleTest) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rt.Write(&buf, strings.NewReader(page)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "test.yml")
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func noRunnerTest(t *testing.T, want ...map[string]string) RuleTest {
	return RuleTest{RuleFile: rulesFile(t), Interval: 15 * time.Second, Span: 5 * time.Minute,
		Target: map[string]string{"job": "n8n-ceiling", "instance": "10.0.0.1:9810"},
		Alerts: []AlertCheck{{Alert: "N8nWorkerWithoutRunner", EvalTime: 2 * time.Minute, Want: want}}}
}

// The file holds every finite sample with the target labels, histograms
// flattened, and the alert's severity and expanded annotations.
func TestRuleTestFile(t *testing.T) {
	f := writeRuleTest(t, noRunnerTest(t, map[string]string{"job": "n8n-ceiling", "instance": "10.0.0.1:9810", "worker": "n8n/w-2"}))
	b, _ := os.ReadFile(f)
	var got testFile
	if err := yaml.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	series := map[string]string{}
	for _, s := range got.Tests[0].InputSeries {
		series[s.Series] = s.Values
	}
	target := `instance="10.0.0.1:9810", job="n8n-ceiling"`
	want := map[string]string{
		`n8n_worker_runner_capacity{` + target + `, worker="n8n/w-1"}`:                  "4x20",
		`n8n_worker_runner_capacity{` + target + `, worker="n8n/w-2"}`:                  "0x20",
		`n8n_runner_task_duration_seconds_bucket{` + target + `, le="1", probe="p"}`:    "3x20",
		`n8n_runner_task_duration_seconds_bucket{` + target + `, le="+Inf", probe="p"}`: "4x20",
		`n8n_runner_task_duration_seconds_sum{` + target + `, probe="p"}`:               "4.5x20",
		`n8n_runner_task_duration_seconds_count{` + target + `, probe="p"}`:             "4x20",
	}
	if !maps.Equal(series, want) {
		t.Errorf("input series\n%v\nwant (the NaN left out)\n%v", series, want)
	}
	alerts := got.Tests[0].AlertRuleTest
	if len(alerts) != 1 || len(alerts[0].ExpAlerts) != 1 {
		t.Fatalf("alert tests %+v", alerts)
	}
	exp := alerts[0].ExpAlerts[0]
	if exp.Labels["severity"] != "critical" || exp.Labels["worker"] != "n8n/w-2" || exp.Annotations["summary"] != "Worker n8n/w-2 has no task runner" {
		t.Errorf("expected alert %+v", exp)
	}
	if got.RuleFiles[0] != rulesFile(t) || got.Tests[0].Interval != "15s" || alerts[0].EvalTime != "2m" {
		t.Errorf("file %+v", got)
	}
}

// promtool passes the file that expects the right alert and fails the
// ones that expect none or the wrong worker: the check can fail.
func TestRuleTestUnderPromtool(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	ctx := context.Background()
	target := map[string]string{"job": "n8n-ceiling", "instance": "10.0.0.1:9810"}
	with := func(worker string) map[string]string {
		return map[string]string{"job": target["job"], "instance": target["instance"], "worker": worker}
	}
	if out, err := PromtoolTestRules(ctx, promtool, writeRuleTest(t, noRunnerTest(t, with("n8n/w-2")))); err != nil {
		t.Errorf("the firing alert was not matched: %v\n%s", err, out)
	}
	for name, rt := range map[string]RuleTest{"no alert": noRunnerTest(t), "wrong worker": noRunnerTest(t, with("n8n/w-1"))} {
		if out, err := PromtoolTestRules(ctx, promtool, writeRuleTest(t, rt)); err == nil {
			t.Errorf("%s: promtool passed:\n%s", name, out)
		}
	}
}

func TestRuleTestRejects(t *testing.T) {
	var buf bytes.Buffer
	for name, rt := range map[string]RuleTest{
		"no interval":     {RuleFile: rulesFile(t), Span: time.Minute},
		"unknown alert":   {RuleFile: rulesFile(t), Interval: time.Second, Span: time.Minute, Alerts: []AlertCheck{{Alert: "Nope"}}},
		"target conflict": {RuleFile: rulesFile(t), Interval: time.Second, Span: time.Minute, Target: map[string]string{"worker": "x"}},
	} {
		if err := rt.Write(&buf, strings.NewReader(page)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
