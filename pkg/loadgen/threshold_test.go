package loadgen

import (
	"strings"
	"testing"
)

func TestThresholds(t *testing.T) {
	sum := Summary{PassRate: 0.97, ErrorRate: 0.03, Throughput: 4.9,
		Latency: Latency{Count: 100, P50: 1.0, P90: 2.5, P95: 3.2, P99: 59.5, Mean: 1.4}}
	cases := []struct {
		expr string
		pass bool
	}{
		{"fail_rate<0.05", true},
		{"fail_rate<0.03", false},
		{"fail_rate<=0.03", true},
		{"error_rate < 0.01", false},
		{"pass_rate>=0.97", true},
		{"throughput>5", false},
		{"throughput>4.5", true},
		{"p95<60s", true},
		{"p95<3s", false},
		{"p99<60s", true},
		{"p50<=1000ms", true},
		{"mean_latency<1s", false},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := th.Check(sum); got.Passed != c.pass || got.Expr != c.expr {
			t.Errorf("%s: %+v, want passed=%v", c.expr, got, c.pass)
		}
	}
}

func TestThresholdLatencyWithoutPassingRequestsFails(t *testing.T) {
	th, _ := ParseThreshold("p95<60s")
	if th.Check(Summary{ErrorRate: 1}).Passed {
		t.Error("p95 passed with no passing request")
	}
}

func TestParseThresholdErrors(t *testing.T) {
	for in, want := range map[string]string{
		"p95<60":         "duration",
		"fail_rate<abc":  "not a number",
		"latency<1s":     "unknown metric",
		"fail_rate=0.05": "want metric<limit",
		"":               "want metric<limit",
	} {
		_, err := ParseThreshold(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to mention %q", in, err, want)
		}
	}
}
