package main

import (
	"strings"
	"testing"
)

const stream = `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: first\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: FAILED check x\n"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"ok line\n"}
{"Action":"pass","Package":"p","Test":"TestB"}
`

func TestRepeatsTheTailOfFailedTests(t *testing.T) {
	var out strings.Builder
	if code := run(strings.NewReader(stream), &out, 2); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	got := out.String()
	at := strings.Index(got, "==== FAILED")
	if at < 0 {
		t.Fatalf("no failure summary in:\n%s", got)
	}
	tail := got[at:]
	want := "==== FAILED p TestA; its last lines:\n    a_test.go:9: first\n    a_test.go:9: FAILED check x\n"
	if tail != want {
		t.Errorf("tail:\n%s\nwant:\n%s", tail, want)
	}
	if !strings.HasPrefix(got, "=== RUN   TestA\n") || !strings.Contains(got, "ok line\n") {
		t.Errorf("output not echoed:\n%s", got)
	}
}

func TestPassingStreamAndStrayLines(t *testing.T) {
	var out strings.Builder
	if code := run(strings.NewReader(`{"Action":"pass","Package":"p"}`+"\n"), &out, 5); code != 0 || out.Len() != 0 {
		t.Errorf("passing stream: exit %d, output %q", code, out.String())
	}
	out.Reset()
	if code := run(strings.NewReader("# build failed\n"), &out, 5); code != 0 || out.String() != "# build failed\n" {
		t.Errorf("stray line: exit %d, output %q", code, out.String())
	}
}
