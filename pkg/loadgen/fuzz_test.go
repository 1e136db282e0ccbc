package loadgen

import "testing"

// Hostile inputs must give an error or a value, never a panic.

func FuzzBuildJSONBody(f *testing.F) {
	f.Add(`{"sleep_ms":1000}`, "sleep_ms=3000")
	f.Add(`{"a":{"b":1}}`, "a.b.c=[1,")
	f.Add(``, "..=x")
	f.Fuzz(func(_ *testing.T, tmpl, set string) {
		_, _ = BuildJSONBody(tmpl, []string{set})
	})
}

func FuzzThresholdAndCheck(f *testing.F) {
	f.Add("p95<60s")
	f.Add("a.b==")
	f.Fuzz(func(_ *testing.T, expr string) {
		if th, err := ParseThreshold(expr); err == nil {
			th.Check(Summary{})
		}
		if c, err := ParseFieldCheck(expr); err == nil {
			(Checks{Fields: []FieldCheck{c}}).Evaluate(200, []byte(expr))
		}
	})
}
