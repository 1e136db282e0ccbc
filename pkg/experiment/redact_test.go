package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// A hook that prints its secret env (from the spec and from loadctl's own
// environment) and endpoint URLs with credentials: neither the log, the
// case error nor the JSON result shows a secret, while a short value of
// a secret-looking name (API_KEY=1) and the hook's other output stay.
func TestHookOutputIsRedactedByValue(t *testing.T) {
	t.Setenv("N8N_TEST_DB_PASSWORD", "pw-S3CRET-from-env")
	addr := testtool.ClosedAddr(t)
	script := `echo "token $LAB_API_TOKEN pw $N8N_TEST_DB_PASSWORD key $API_KEY count 1" >&2;` +
		`echo "lab: webhook http://u:P@` + addr + `/hook?token=T";` +
		`echo "lab: exporter-metrics http://u:P2@` + addr + `/metrics?auth=T2";` +
		`if [ "$FAIL" = yes ]; then echo "dying with $LAB_API_TOKEN" >&2; exit 3; fi`
	spec, err := Parse(strings.NewReader(`
name: secrets
apply: {kind: command, command: [bash, -c, '` + strings.ReplaceAll(script, "'", "''") + `'], timeout: 20s}
env: {LAB_API_TOKEN: tok-S3CRET-value, API_KEY: "1"}
load: {vus: [1], step: 200ms, warmup: 0s}
settle: {timeout: 300ms, poll: 50ms}
cases:
  - name: settle-fails
  - name: hook-fails
    env: {FAIL: "yes"}
`))
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	r := &Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", func(l string) { log = append(log, l) })}
	r.Log = func(l string) { log = append(log, l) }
	res := r.Run(context.Background())
	var doc bytes.Buffer
	if err := WriteJSON(&doc, res); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(log, "\n") + "\n" + doc.String()
	for _, secret := range []string{"S3CRET", ":P@", ":P2@", "token=T", "auth=T2"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q reached the log or the result:\n%s", secret, all)
		}
	}
	if len(res.Cases) != 2 || !strings.Contains(res.Cases[0].Error, "auth=xxxxx") || !strings.Contains(res.Cases[1].Error, "dying with xxxxx") {
		t.Errorf("case errors %q, %q: want the redacted URL and the hook's redacted tail", res.Cases[0].Error, res.Cases[1].Error)
	}
	if !strings.Contains(strings.Join(log, "\n"), "token xxxxx pw xxxxx key 1 count 1") {
		t.Errorf("the hook's line is not logged redacted by value:\n%s", strings.Join(log, "\n"))
	}
	if env := res.Cases[0].Env; env["LAB_API_TOKEN"] != "xxxxx" || env["API_KEY"] != "xxxxx" {
		t.Errorf("recorded env %v: secret-looking names masked whatever their length", env)
	}
}

// The spec a result echoes has its URLs redacted and no request body
// unless the runner records bodies.
func TestResultSpecIsRedacted(t *testing.T) {
	spec, err := Parse(strings.NewReader(`
name: echo
apply: {kind: none}
target: {urls: ["http://u:P@127.0.0.1:1/hook?token=T"], exporter: "http://u:P2@127.0.0.1:1/metrics?auth=T2", body: {api_key: S3CRET}}
load: {vus: [1]}
settle: {timeout: 100ms, poll: 50ms}
cases:
  - name: a
    target: {urls: ["http://u:P@127.0.0.1:1/other?token=T"], body: {x: S3CRET}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		res := (&Runner{Spec: spec, Apply: NewApplier(spec.Apply, ".", nil), RecordBody: keep}).Run(context.Background())
		var doc bytes.Buffer
		if err := WriteJSON(&doc, res); err != nil {
			t.Fatal(err)
		}
		out := doc.String()
		for _, secret := range []string{":P@", ":P2@", "token=T", "auth=T2"} {
			if strings.Contains(out, secret) {
				t.Errorf("record body %v: %q in the result", keep, secret)
			}
		}
		if got := strings.Contains(out, "S3CRET"); got != keep {
			t.Errorf("record body %v: body in the result %v", keep, got)
		}
		if spec.Target.URLs[0] != "http://u:P@127.0.0.1:1/hook?token=T" || spec.Cases[0].Target.Body == nil {
			t.Error("redacting the result's copy changed the spec being run")
		}
	}
}
