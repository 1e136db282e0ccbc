package loadgen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// FieldCheck compares one JSON field of the response body, e.g. ok==true
// or data.state!="error".
type FieldCheck struct {
	Expr  string
	path  []string
	equal bool
	want  any
}

// ParseFieldCheck reads `path==value` or `path!=value`. The value is JSON
// when it parses as JSON, else a plain string.
func ParseFieldCheck(expr string) (FieldCheck, error) {
	for _, op := range []string{"==", "!="} {
		path, val, ok := strings.Cut(expr, op)
		if !ok {
			continue
		}
		path = strings.TrimSpace(path)
		if path == "" {
			return FieldCheck{}, fmt.Errorf("check %q: empty field path", expr)
		}
		return FieldCheck{Expr: expr, path: strings.Split(path, "."), equal: op == "==", want: decodeLiteral(strings.TrimSpace(val))}, nil
	}
	return FieldCheck{}, fmt.Errorf("check %q: want field==value or field!=value", expr)
}

func decodeLiteral(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return v
	}
	return s
}

// holds reports whether doc satisfies the check; a missing field fails ==
// and passes !=.
func (c FieldCheck) holds(doc any) bool {
	got, found := lookup(doc, c.path)
	eq := found && reflect.DeepEqual(got, c.want)
	return eq == c.equal
}

func lookup(doc any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[k]; !ok {
			return nil, false
		}
	}
	return doc, true
}

// Checks decide whether a response passes.
type Checks struct {
	Status []int // accepted statuses; empty accepts any 2xx
	Fields []FieldCheck
}

// ParseChecks builds the checks that accept status (empty: any 2xx) and
// every field check in exprs (ParseFieldCheck's form).
func ParseChecks(status []int, exprs []string) (Checks, error) {
	c := Checks{Status: status}
	for _, e := range exprs {
		fc, err := ParseFieldCheck(e)
		if err != nil {
			return Checks{}, err
		}
		c.Fields = append(c.Fields, fc)
	}
	return c, nil
}

// NeedsBody reports whether the body must be kept for the field checks.
func (c Checks) NeedsBody() bool { return len(c.Fields) > 0 }

// Evaluate classifies a complete response.
func (c Checks) Evaluate(status int, body []byte) Outcome {
	if !c.statusOK(status) {
		return OutcomeStatus
	}
	if len(c.Fields) == 0 {
		return OutcomePass
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return OutcomeCheck
	}
	for _, f := range c.Fields {
		if !f.holds(doc) {
			return OutcomeCheck
		}
	}
	return OutcomePass
}

func (c Checks) statusOK(status int) bool {
	if len(c.Status) == 0 {
		return status >= 200 && status < 300
	}
	for _, s := range c.Status {
		if s == status {
			return true
		}
	}
	return false
}
