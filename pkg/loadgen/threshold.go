package loadgen

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Threshold is a pass/fail rule over the run's totals, e.g. fail_rate<0.05
// or p95<60s.
type Threshold struct {
	Expr   string
	Metric string
	Op     string
	Limit  float64 // seconds for latencies
}

// thresholdMetrics maps a metric name to its value in a Summary and
// whether its limit is a duration.
var thresholdMetrics = map[string]struct {
	duration bool
	value    func(Summary) float64
}{
	"fail_rate":    {false, func(s Summary) float64 { return s.ErrorRate }},
	"error_rate":   {false, func(s Summary) float64 { return s.ErrorRate }},
	"pass_rate":    {false, func(s Summary) float64 { return s.PassRate }},
	"throughput":   {false, func(s Summary) float64 { return s.Throughput }},
	"p50":          {true, func(s Summary) float64 { return s.Latency.P50 }},
	"p90":          {true, func(s Summary) float64 { return s.Latency.P90 }},
	"p95":          {true, func(s Summary) float64 { return s.Latency.P95 }},
	"p99":          {true, func(s Summary) float64 { return s.Latency.P99 }},
	"mean_latency": {true, func(s Summary) float64 { return s.Latency.Mean }},
}

// Two-character operators first, so "<=" is not read as "<".
var thresholdOps = []string{"<=", ">=", "<", ">"}

// ThresholdMetrics lists the names a threshold may use.
func ThresholdMetrics() []string {
	return slices.Sorted(maps.Keys(thresholdMetrics))
}

// ParseThreshold reads `metric op limit`. Latency limits are durations
// (60s, 500ms); rates are fractions (0.05); throughput is per second.
func ParseThreshold(expr string) (Threshold, error) {
	for _, op := range thresholdOps {
		name, lim, ok := strings.Cut(expr, op)
		if !ok {
			continue
		}
		t := Threshold{Expr: expr, Metric: strings.TrimSpace(name), Op: op}
		m, known := thresholdMetrics[t.Metric]
		if !known {
			return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q, want one of %s", expr, t.Metric, strings.Join(ThresholdMetrics(), ", "))
		}
		limit, err := parseLimit(strings.TrimSpace(lim), m.duration)
		if err != nil {
			return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
		}
		t.Limit = limit
		return t, nil
	}
	return Threshold{}, fmt.Errorf("threshold %q: want metric<limit (operators <, <=, >, >=)", expr)
}

func parseLimit(s string, duration bool) (float64, error) {
	if duration {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("limit %q is not a duration such as 60s or 500ms", s)
		}
		return d.Seconds(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("limit %q is not a number", s)
	}
	return v, nil
}

// ThresholdResult is one rule checked against the run.
type ThresholdResult struct {
	Expr   string  `json:"expr"`
	Value  float64 `json:"value"`
	Passed bool    `json:"passed"`
}

// Check evaluates the rule. A latency rule fails when no request passed:
// an empty histogram proves nothing about latency.
func (t Threshold) Check(s Summary) ThresholdResult {
	m := thresholdMetrics[t.Metric]
	v := m.value(s)
	ok := compare(v, t.Op, t.Limit)
	if m.duration && s.Latency.Count == 0 {
		ok = false
	}
	return ThresholdResult{Expr: t.Expr, Value: v, Passed: ok}
}

func compare(v float64, op string, lim float64) bool {
	switch op {
	case "<":
		return v < lim
	case "<=":
		return v <= lim
	case ">":
		return v > lim
	default:
		return v >= lim
	}
}
