package dashboards

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// panelQuery returns one query of the exported dashboard.
func panelQuery(t *testing.T, panel, ref string) string {
	t.Helper()
	qs, err := Queries(exported(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Panel == panel && q.RefID == ref {
			return q.Expr
		}
	}
	t.Fatalf("no query %s of panel %q", ref, panel)
	return ""
}

// promqlCase is one promtool unit test: input series, and the samples a
// recorded query must give.
type promqlCase struct {
	series []string // 'name{labels} values'
	want   map[string][]string
}

// evalQueries records each query under a name and runs promtool's rule
// unit tests on them, so a query is checked by Prometheus itself against
// the series each platform exports.
func evalQueries(t *testing.T, queries map[string]string, cases []promqlCase) {
	t.Helper()
	promtool := testtool.Require(t, "promtool", "prometheus")
	dir := t.TempDir()
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for name, expr := range queries {
		fmt.Fprintf(&rules, "      - record: %s\n        expr: %q\n", name, expr)
	}
	var tests strings.Builder
	tests.WriteString("rule_files: [rules.yml]\nevaluation_interval: 15s\ntests:\n")
	for _, c := range cases {
		tests.WriteString("  - interval: 15s\n    input_series:\n")
		for _, s := range c.series {
			name, values, _ := strings.Cut(s, " ")
			fmt.Fprintf(&tests, "      - series: %q\n        values: %q\n", name, values)
		}
		tests.WriteString("    promql_expr_test:\n")
		for rec, samples := range c.want {
			fmt.Fprintf(&tests, "      - expr: %s\n        eval_time: 1m\n        exp_samples:\n", rec)
			for _, s := range samples {
				labels, value, _ := strings.Cut(s, " ")
				fmt.Fprintf(&tests, "          - labels: %q\n            value: %s\n", rec+labels, value)
			}
		}
	}
	for name, body := range map[string]string{"rules.yml": rules.String(), "tests.yml": tests.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "test", "rules", "tests.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s\nrules:\n%s\ntests:\n%s", err, out, rules.String(), tests.String())
	}
}

// The memory panels read the exporter's series on Docker and cAdvisor's,
// joined with n8n_container_info for the role, on Kubernetes; the limit
// lines up with both.
func TestMemoryPanelsOnBothPlatforms(t *testing.T) {
	queries := map[string]string{
		"ws":    panelQuery(t, "Working set vs limit", "A"),
		"share": panelQuery(t, "Runner memory of limit", "A"),
		"rss":   panelQuery(t, "RSS", "A"),
	}
	docker := promqlCase{
		series: []string{
			`n8n_container_memory_working_set_bytes{job="exporter",container="n8n-lab-runner-1-1",role="runner"} 1000000000x5`,
			`n8n_container_memory_working_set_bytes{job="exporter",container="n8n-lab-worker-1",role="worker"} 200000000x5`,
			`n8n_container_memory_limit_bytes{job="exporter",container="n8n-lab-runner-1-1",role="runner"} 2000000000x5`,
			`n8n_container_memory_rss_bytes{job="exporter",container="n8n-lab-runner-1-1",role="runner"} 900000000x5`,
			`n8n_container_info{job="exporter",namespace="",pod="",container="n8n-lab-runner-1-1",role="runner"} 1x5`,
		},
		want: map[string][]string{
			"ws":    {`{container="n8n-lab-runner-1-1",role="runner"} 1000000000`, `{container="n8n-lab-worker-1",role="worker"} 200000000`},
			"share": {`{container="n8n-lab-runner-1-1",role="runner"} 0.5`},
			"rss":   {`{container="n8n-lab-runner-1-1",role="runner"} 900000000`},
		},
	}
	kube := promqlCase{
		series: []string{
			`container_memory_working_set_bytes{job="kubelet",namespace="n8n",pod="runner-0",container="runner",id="/a"} 500000000x5`,
			`container_memory_working_set_bytes{job="kubelet",namespace="n8n",pod="runner-0",container="POD",id="/b"} 1000000x5`,
			`container_memory_working_set_bytes{job="kubelet",namespace="n8n",pod="runner-0",container="",id="/c"} 501000000x5`,
			`container_memory_working_set_bytes{job="kubelet",namespace="other",pod="db-0",container="db",id="/d"} 700000000x5`,
			`container_memory_rss{job="kubelet",namespace="n8n",pod="runner-0",container="runner",id="/a"} 400000000x5`,
			`n8n_container_info{job="exporter",namespace="n8n",pod="runner-0",container="runner",role="runner"} 1x5`,
			`n8n_container_memory_limit_bytes{job="exporter",container="n8n/runner-0/runner",role="runner"} 1000000000x5`,
		},
		want: map[string][]string{
			"ws":    {`{container="n8n/runner-0/runner",role="runner"} 500000000`},
			"share": {`{container="n8n/runner-0/runner",role="runner"} 0.5`},
			"rss":   {`{container="n8n/runner-0/runner",role="runner"} 400000000`},
		},
	}
	evalQueries(t, queries, []promqlCase{docker, kube})
}

// What binds: every resource's ceiling, the binding one in its own query;
// CPU per execution: the CPU resources' demands only.
func TestWhatBindsAndCPUPanels(t *testing.T) {
	queries := map[string]string{
		"others": panelQuery(t, "What binds", "A"),
		"binds":  panelQuery(t, "What binds", "B"),
		"cpu":    panelQuery(t, "CPU per execution by process", "A"),
	}
	evalQueries(t, queries, []promqlCase{{
		series: []string{
			`n8n_resource_ceiling_executions_per_second{resource="slots:worker:w1"} 171.6x5`,
			`n8n_resource_ceiling_executions_per_second{resource="cpu:host"} 58.8x5`,
			`n8n_cluster_bottleneck{resource="slots:worker:w1"} 0x5`,
			`n8n_cluster_bottleneck{resource="cpu:host"} 1x5`,
			`n8n_resource_demand_seconds{resource="slots:worker:w1"} 0.0874x5`,
			`n8n_resource_demand_seconds{resource="cpu:host"} 0.034x5`,
			`n8n_resource_demand_seconds{resource="cpu:n8n-lab-main"} 0.012x5`,
		},
		want: map[string][]string{
			"others": {`{resource="slots:worker:w1"} 171.6`},
			"binds":  {`{resource="cpu:host"} 58.8`},
			"cpu":    {`{resource="cpu:host"} 0.034`, `{resource="cpu:n8n-lab-main"} 0.012`},
		},
	}})
}
