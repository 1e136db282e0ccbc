package kube

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// RuleTest turns one scrape of an exporter into a promtool rule-test file:
// every sample of the page becomes an input series that holds its scraped
// value for Span, with the target labels Prometheus would add (job,
// instance). Each AlertCheck says which alerts must be firing at its
// evaluation time; their rule labels and annotations come from RuleFile.
type RuleTest struct {
	RuleFile string            // absolute path of the rules under test
	Interval time.Duration     // between samples, and between rule evaluations
	Span     time.Duration     // how long each series holds its value
	Target   map[string]string // added to every series
	Alerts   []AlertCheck
}

// AlertCheck expects exactly the alerts in Want to fire at EvalTime.
// Each entry holds the labels the alert's expression returns (target
// labels included); the rule's own labels and its annotations are added.
type AlertCheck struct {
	Alert    string
	EvalTime time.Duration
	Want     []map[string]string
}

// Write writes the test file for page, a Prometheus text-format scrape.
// Samples that are NaN or infinite are left out.
func (rt RuleTest) Write(w io.Writer, page io.Reader) error {
	if rt.Interval <= 0 || rt.Span < rt.Interval {
		return fmt.Errorf("rule test: want 0 < interval ≤ span, got %v and %v", rt.Interval, rt.Span)
	}
	series, err := rt.inputSeries(page)
	if err != nil {
		return err
	}
	rules, err := readAlertRules(rt.RuleFile)
	if err != nil {
		return err
	}
	group := testGroup{Interval: model.Duration(rt.Interval).String(), InputSeries: series}
	for _, a := range rt.Alerts {
		rule, ok := rules[a.Alert]
		if !ok {
			return fmt.Errorf("rule test: %s has no alert %s", rt.RuleFile, a.Alert)
		}
		at := alertTest{EvalTime: model.Duration(a.EvalTime).String(), Alertname: a.Alert, ExpAlerts: []expAlert{}}
		for _, want := range a.Want {
			exp, err := rule.expected(want)
			if err != nil {
				return fmt.Errorf("rule test: %s: %w", a.Alert, err)
			}
			at.ExpAlerts = append(at.ExpAlerts, exp)
		}
		group.AlertRuleTest = append(group.AlertRuleTest, at)
	}
	enc := yaml.NewEncoder(w)
	defer enc.Close()
	return enc.Encode(testFile{RuleFiles: []string{rt.RuleFile}, EvaluationInterval: group.Interval, Tests: []testGroup{group}})
}

// inputSeries flattens the page (histograms and summaries into their
// _bucket, _sum and _count series) and adds the target labels.
func (rt RuleTest) inputSeries(page io.Reader) ([]inputSeries, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(page)
	if err != nil {
		return nil, fmt.Errorf("rule test: scrape: %w", err)
	}
	list := make([]*dto.MetricFamily, 0, len(fams))
	for _, f := range fams {
		list = append(list, f)
	}
	samples, err := expfmt.ExtractSamples(&expfmt.DecodeOptions{Timestamp: model.Now()}, list...)
	if err != nil {
		return nil, fmt.Errorf("rule test: scrape: %w", err)
	}
	repeats := int(rt.Span / rt.Interval)
	var out []inputSeries
	for _, s := range samples {
		v := float64(s.Value)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		for k, val := range rt.Target {
			if _, taken := s.Metric[model.LabelName(k)]; taken {
				return nil, fmt.Errorf("rule test: series %s already has the target label %s", s.Metric, k)
			}
			s.Metric[model.LabelName(k)] = model.LabelValue(val)
		}
		out = append(out, inputSeries{Series: s.Metric.String(), Values: strconv.FormatFloat(v, 'g', -1, 64) + "x" + strconv.Itoa(repeats)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Series < out[j].Series })
	return out, nil
}

// alertRule is an alerting rule's labels and annotation templates.
type alertRule struct {
	Alert       string            `yaml:"alert"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readAlertRules(path string) (map[string]alertRule, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rule test: %w", err)
	}
	var doc struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("rule test: %s: %w", path, err)
	}
	out := map[string]alertRule{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out[r.Alert] = r
			}
		}
	}
	return out, nil
}

// labelRef is the one template form expanded here: {{ $labels.name }}.
var labelRef = regexp.MustCompile(`\{\{\s*\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)

// expected is the alert the rule raises for an expression result with
// labels: those labels plus the rule's, and its annotations expanded.
func (r alertRule) expected(labels map[string]string) (expAlert, error) {
	exp := expAlert{Labels: map[string]string{}, Annotations: map[string]string{}}
	for k, v := range labels {
		exp.Labels[k] = v
	}
	for k, v := range r.Labels {
		exp.Labels[k] = v
	}
	for k, tmpl := range r.Annotations {
		text := labelRef.ReplaceAllStringFunc(tmpl, func(ref string) string {
			return exp.Labels[labelRef.FindStringSubmatch(ref)[1]]
		})
		if strings.Contains(text, "{{") {
			return expAlert{}, fmt.Errorf("annotation %s: only {{ $labels.name }} templates are expanded: %q", k, tmpl)
		}
		exp.Annotations[k] = text
	}
	return exp, nil
}

// PromtoolTestRules runs `promtool test rules file` and returns its output;
// a failing test is an error.
func PromtoolTestRules(ctx context.Context, promtool, file string) (string, error) {
	out, err := exec.CommandContext(ctx, promtool, "test", "rules", file).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("promtool test rules %s: %w", file, err)
	}
	return string(out), nil
}

// The rule-test file format (promtool test rules).
type testFile struct {
	RuleFiles          []string    `yaml:"rule_files"`
	EvaluationInterval string      `yaml:"evaluation_interval"`
	Tests              []testGroup `yaml:"tests"`
}

type testGroup struct {
	Interval      string        `yaml:"interval"`
	InputSeries   []inputSeries `yaml:"input_series"`
	AlertRuleTest []alertTest   `yaml:"alert_rule_test"`
}

type inputSeries struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time"`
	Alertname string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

type expAlert struct {
	Labels      map[string]string `yaml:"exp_labels"`
	Annotations map[string]string `yaml:"exp_annotations"`
}
