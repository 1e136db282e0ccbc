package compose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/dashboards/metricnames"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"gopkg.in/yaml.v3"
)

const promDir = "prometheus"

func ruleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(promDir, "rules", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule files under %s/rules (%v)", promDir, err)
	}
	return files
}

func TestRulesPassPromtoolCheck(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	t.Log(run(t, ".", nil, promtool, append([]string{"check", "rules"}, ruleFiles(t)...)...))
}

func TestRuleUnitTests(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	tests, _ := filepath.Glob(filepath.Join(promDir, "tests", "*.yml"))
	if len(tests) == 0 {
		t.Fatal("no promtool unit tests under prometheus/tests")
	}
	for i := range tests {
		tests[i], _ = filepath.Rel(promDir, tests[i])
	}
	t.Log(run(t, promDir, nil, promtool, append([]string{"test", "rules"}, tests...)...))
}

func TestPrometheusConfigValid(t *testing.T) {
	promtool := testtool.Require(t, "promtool", "prometheus")
	t.Log(run(t, promDir, nil, promtool, "check", "config", "prometheus.yml"))
}

type ruleFile struct {
	Groups []struct {
		Rules []struct{ Alert, Record, Expr string }
	}
}

func readRules(t *testing.T) (alerts, records map[string]string) {
	t.Helper()
	alerts, records = map[string]string{}, map[string]string{}
	for _, f := range ruleFiles(t) {
		var rf ruleFile
		readYAML(t, f, &rf)
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert != "" {
					alerts[r.Alert] = r.Expr
				} else {
					records[r.Record] = r.Expr
				}
			}
		}
	}
	return alerts, records
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// The shipped alerts and recording rules all exist.
func TestRulesExist(t *testing.T) {
	alerts, records := readRules(t)
	for _, a := range []string{"N8nRunnerSaturated", "N8nWorkerWithoutRunner", "N8nTaskRequestsWillTimeOut", "N8nRunnerNoMemoryLimit",
		"N8nRunnerMemoryNearLimit", "N8nRunnerOOMKilled", "N8nThroughputAtCeiling", "N8nBindingKindChanged", "N8nExporterSourceDown"} {
		if alerts[a] == "" {
			t.Errorf("alert %s missing", a)
		}
	}
	for _, r := range []string{"probe:n8n_runner_utilisation:ratio", "cluster:n8n_executions_completed:rate2m", "cluster:n8n_ceiling_headroom:ratio"} {
		if records[r] == "" {
			t.Errorf("recording rule %s missing", r)
		}
	}
}

// Every alert has a unit test case where it fires and one where it must not.
func TestEveryAlertTestedFiringAndNot(t *testing.T) {
	alerts, _ := readRules(t)
	fires, silent := map[string]bool{}, map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(promDir, "tests", "*.yml"))
	for _, f := range files {
		var tf struct {
			Tests []struct {
				AlertRuleTest []struct {
					Alertname string
					ExpAlerts []any `yaml:"exp_alerts"`
				} `yaml:"alert_rule_test"`
			}
		}
		readYAML(t, f, &tf)
		for _, tc := range tf.Tests {
			for _, at := range tc.AlertRuleTest {
				if len(at.ExpAlerts) > 0 {
					fires[at.Alertname] = true
				} else {
					silent[at.Alertname] = true
				}
			}
		}
	}
	for a := range alerts {
		if !fires[a] || !silent[a] {
			t.Errorf("alert %s: tested firing %v, tested not firing %v", a, fires[a], silent[a])
		}
	}
}

// The rules name only metrics the code emits (or n8n's own, listed).
func TestRulesUseEmittedNames(t *testing.T) {
	known := metricnames.Known()
	alerts, records := readRules(t)
	for _, set := range []map[string]string{alerts, records} {
		for name, expr := range set {
			if bad := metricnames.Unknown(expr, known); len(bad) > 0 {
				t.Errorf("%s uses %v, which no binary emits", name, bad)
			}
		}
	}
}

// The measured rate prefers the exporter's exact count and falls back on
// n8n's own counter; the headroom divides by the cluster's ceiling, the
// minimum over every resource.
func TestThroughputUsesTheExportersCountAndTheClusterCeiling(t *testing.T) {
	_, records := readRules(t)
	rate := records["cluster:n8n_executions_completed:rate2m"]
	exporter, n8n := strings.Index(rate, "n8n_cluster_executions_total"), strings.Index(rate, "n8n_scaling_mode_queue_jobs_completed")
	if exporter < 0 || n8n < exporter || !strings.Contains(rate[exporter:n8n], "or") {
		t.Errorf("rate %q: want the exporter's count, or else n8n's", rate)
	}
	if !strings.Contains(records["cluster:n8n_ceiling_headroom:ratio"], "n8n_cluster_ceiling_executions_per_second") {
		t.Errorf("headroom %q: want the cluster ceiling", records["cluster:n8n_ceiling_headroom:ratio"])
	}
}
