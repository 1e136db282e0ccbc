package loadgen

import "testing"

func mustCheck(t *testing.T, expr string) FieldCheck {
	t.Helper()
	c, err := ParseFieldCheck(expr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChecksEvaluate(t *testing.T) {
	ok := Checks{Status: []int{200}, Fields: []FieldCheck{mustCheck(t, "ok==true")}}
	cases := []struct {
		checks Checks
		status int
		body   string
		want   Outcome
	}{
		{ok, 200, `{"ok":true}`, OutcomePass},
		{ok, 200, `{"ok":false}`, OutcomeCheck},
		{ok, 200, `{"ok":"true"}`, OutcomeCheck},
		{ok, 200, `{}`, OutcomeCheck},
		{ok, 200, `not json`, OutcomeCheck},
		{ok, 500, `{"ok":true}`, OutcomeStatus},
		{ok, 201, `{"ok":true}`, OutcomeStatus},
		{Checks{}, 204, ``, OutcomePass},
		{Checks{}, 302, ``, OutcomeStatus},
		{Checks{Status: []int{200, 202}}, 202, ``, OutcomePass},
		{Checks{Fields: []FieldCheck{mustCheck(t, "data.n==3")}}, 200, `{"data":{"n":3}}`, OutcomePass},
		{Checks{Fields: []FieldCheck{mustCheck(t, "data.n==3")}}, 200, `{"data":{"n":3.5}}`, OutcomeCheck},
		{Checks{Fields: []FieldCheck{mustCheck(t, "state!=error")}}, 200, `{"state":"done"}`, OutcomePass},
		{Checks{Fields: []FieldCheck{mustCheck(t, "state!=error")}}, 200, `{"state":"error"}`, OutcomeCheck},
		{Checks{Fields: []FieldCheck{mustCheck(t, "state!=error")}}, 200, `{}`, OutcomePass},
	}
	for i, c := range cases {
		if got := c.checks.Evaluate(c.status, []byte(c.body)); got != c.want {
			t.Errorf("case %d (%d %s) = %v, want %v", i, c.status, c.body, got, c.want)
		}
	}
}

func TestParseFieldCheckErrors(t *testing.T) {
	for _, in := range []string{"ok", "==true", "ok=true", ""} {
		if _, err := ParseFieldCheck(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
