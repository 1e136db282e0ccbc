package loadgen

import (
	"strings"
	"testing"
)

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

// ParseChecks keeps the statuses and parses every field check in order;
// one bad expression fails the whole set.
func TestParseChecks(t *testing.T) {
	c, err := ParseChecks([]int{200, 201}, []string{"ok==true", `state!="error"`})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Status) != 2 || len(c.Fields) != 2 || c.Fields[1].Expr != `state!="error"` {
		t.Fatalf("got %+v", c)
	}
	if c.Evaluate(201, []byte(`{"ok":true,"state":"done"}`)) != OutcomePass || c.Evaluate(200, []byte(`{"ok":true,"state":"error"}`)) != OutcomeCheck {
		t.Error("the parsed checks do not judge as written")
	}
	if _, err := ParseChecks(nil, []string{"ok==true", "==1"}); err == nil || !strings.Contains(err.Error(), "empty field path") {
		t.Errorf("a bad expression: got %v", err)
	}
}
