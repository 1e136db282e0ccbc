package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// URL secrets the outputs must never show: the webhook's password and
// query value, the exporter's, and a hook's secret env value. They are
// letters and digits only, so no output encoding (JSON, HTML, CSV) could
// disguise a leak.
const (
	webhookPassword  = "pwWEBHOOK1"
	webhookToken     = "tokWEBHOOK2"
	exporterPassword = "pwEXPORTER3"
	exporterToken    = "tokEXPORTER4"
	hookToken        = "tokHOOKENV5"
)

var allSecrets = []string{webhookPassword, webhookToken, exporterPassword, exporterToken, hookToken}

// withSecrets adds a password and a query value to a URL.
func withSecrets(u, password, key, value string) string {
	return strings.Replace(u, "http://", "http://u:"+password+"@", 1) + "?" + key + "=" + value
}

func webhookURL(base string) string { return withSecrets(base, webhookPassword, "token", webhookToken) }
func exporterURL(base string) string {
	return withSecrets(base, exporterPassword, "auth", exporterToken)
}

// unredacted turns redacted text back into what loadctl wrote before it
// redacted: a saved result of that time.
func unredacted(s string) string {
	return strings.NewReplacer("u:xxxxx@", "u:"+webhookPassword+"@", "token=xxxxx", "token="+webhookToken,
		"auth=xxxxx", "auth="+exporterToken).Replace(s)
}

// outputs gathers what a run printed and every file in dir.
func outputs(t *testing.T, dir string, printed ...*bytes.Buffer) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, b := range printed {
		out[fmt.Sprintf("printed[%d]", i)] = b.String()
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// noSecrets fails for every secret in every output, and unless some
// output shows a redacted value: redaction hides values, it does not
// drop the URL.
func noSecrets(t *testing.T, outs map[string]string) {
	t.Helper()
	masked := false
	for name, text := range outs {
		for _, s := range allSecrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %s:\n%s", name, s, text)
			}
		}
		masked = masked || strings.Contains(text, "=xxxxx")
	}
	if !masked {
		t.Errorf("no output shows a redacted URL: %v", outs)
	}
}

// A sweep against a live webhook and exporter, and one against a closed
// port (connection errors quote the URL): stdout, stderr (progress and
// step lines included), JSON, CSV and HTML hide every secret, and so does
// a re-report of a result saved before loadctl redacted.
func TestSweepOutputsHideURLSecrets(t *testing.T) {
	_, srv := newCapture(t)
	closed := "http://" + testtool.ClosedAddr(t)
	for name, urls := range map[string][2]string{
		"live":   {webhookURL(srv.URL + "/webhook/bench"), exporterURL(fakeExporter(t))},
		"closed": {webhookURL(closed + "/webhook/bench"), exporterURL(closed + "/metrics")},
	} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := []string{"sweep", "--url", urls[0], "--exporter", urls[1], "--vus", "1,2", "--step", "200ms", "--metrics-listen", "",
			"--check", "ok==true", "--threshold", "p95<1us", "--out", filepath.Join(dir, "r.json"),
			"--csv", filepath.Join(dir, "r.csv"), "--report", filepath.Join(dir, "r.html")}
		if code := run(args, &stdout, &stderr); code != exitThreshold {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		outs := outputs(t, dir, &stdout, &stderr)
		noSecrets(t, outs)
		if name == "closed" && !strings.Contains(outs["r.json"], `"connection": "Post \"http://u:xxxxx@`) {
			t.Errorf("the connection error example is not there, redacted:\n%s", outs["r.json"])
		}

		old := filepath.Join(t.TempDir(), "old.json")
		if err := os.WriteFile(old, []byte(unredacted(outs["r.json"])), 0o644); err != nil {
			t.Fatal(err)
		}
		again := t.TempDir()
		stdout.Reset()
		stderr.Reset()
		args = []string{"sweep", "--from", old, "--csv", filepath.Join(again, "r.csv"), "--report", filepath.Join(again, "r.html"),
			"--out", filepath.Join(again, "r.json")}
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s re-report: exit %d: %s", name, code, stderr.String())
		}
		noSecrets(t, outputs(t, again, &stdout, &stderr))
	}
}

// An experiment whose spec names secret-bearing URLs, with a case against
// a closed port and a hook that prints its secret env and fails: stdout,
// stderr, JSON, HTML and Markdown hide every secret; so does a re-report.
func TestExperimentOutputsHideSecrets(t *testing.T) {
	_, srv := newCapture(t)
	closed := "http://" + testtool.ClosedAddr(t)
	spec := fmt.Sprintf(`name: secrets
apply: {kind: command, command: [bash, -c, 'echo "hook sees $LAB_API_TOKEN" >&2; if [ "$FAIL" = yes ]; then exit 3; fi'], timeout: 20s}
env: {LAB_API_TOKEN: %s}
target: {urls: [%q], exporter: %q, checks: ["ok==true"], timeout: 5s}
load: {vus: [1], step: 200ms, warmup: 10ms}
settle: {timeout: 5s, poll: 50ms}
sample_every: 100ms
cases:
  - name: live
    wait: {runner_limits: [4]}
  - name: refused
    target: {urls: [%q]}
    wait: {runner_limits: [4]}
  - name: hook-fails
    env: {FAIL: "yes"}
`, hookToken, webhookURL(srv.URL+"/webhook/bench"), exporterURL(fakeExporter(t)), webhookURL(closed+"/webhook/bench"))
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"experiment", "--spec", specFile(t, spec), "--out", filepath.Join(dir, "r.json"),
		"--report", filepath.Join(dir, "r.html"), "--markdown", filepath.Join(dir, "s.md")}, &stdout, &stderr)
	if code != exitError {
		t.Fatalf("exit %d, want %d (the hook fails)\n%s\n%s", code, exitError, stdout.String(), stderr.String())
	}
	outs := outputs(t, dir, &stdout, &stderr)
	noSecrets(t, outs)
	if !strings.Contains(stderr.String(), "hook sees xxxxx") || !strings.Contains(outs["r.json"], `"connection": "Post \"http://u:xxxxx@`) {
		t.Errorf("want the hook's line and the connection error shown redacted:\n%s\n%s", stderr.String(), outs["r.json"])
	}

	old := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(old, []byte(unredacted(outs["r.json"])), 0o644); err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	stdout.Reset()
	stderr.Reset()
	run([]string{"experiment", "--report", filepath.Join(again, "r.html"), "--markdown", filepath.Join(again, "s.md"), old}, &stdout, &stderr)
	noSecrets(t, outputs(t, again, &stdout, &stderr))
}
