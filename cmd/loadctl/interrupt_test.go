package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// asMain makes the test binary run loadctl's main instead of the tests,
// so a test can start loadctl as a process of its own and signal it.
const asMain = "LOADCTL_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// interruptWhen starts loadctl with args, sends SIGINT once a line of
// its stderr contains trigger, and returns the exit code and stderr.
func interruptWhen(t *testing.T, trigger string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sent := false
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		fmt.Fprintln(&log, sc.Text())
		if !sent && strings.Contains(sc.Text(), trigger) {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("loadctl: %v\n%s", err, log.String())
	}
	if !sent {
		t.Fatalf("never saw %q:\n%s", trigger, log.String())
	}
	return cmd.ProcessState.ExitCode(), log.String()
}

// SIGINT during the second of three steps: loadctl exits 130 and the
// result holds the first step, marked interrupted.
func TestSweepInterruptedKeepsPartialResultsAndExits130(t *testing.T) {
	_, srv := newCapture(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, log := interruptWhen(t, "step 1 1 VU done", "sweep", "--url", srv.URL, "--vus", "1,2,3", "--step", "2s",
		"--metrics-listen", "", "--check", "ok==true", "--out", out)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, log)
	}
	res, err := readSaved(out, loadgen.ReadJSON)
	if err != nil {
		t.Fatalf("no partial result: %v\n%s", err, log)
	}
	if !res.Interrupted || len(res.Steps) == 0 || len(res.Steps) == 3 || res.Steps[0].Figures.Passed == 0 {
		t.Errorf("interrupted %v, %d steps, first passed %d", res.Interrupted, len(res.Steps), res.Steps[0].Figures.Passed)
	}
	if !strings.Contains(log, "interrupted") {
		t.Errorf("stderr does not say it was interrupted:\n%s", log)
	}
}

// SIGINT during the first of two cases' load: exit 130, and the result
// holds the case that was running.
func TestExperimentInterruptedKeepsPartialResultsAndExits130(t *testing.T) {
	_, srv := newCapture(t)
	spec := fmt.Sprintf(`name: cut
apply: {kind: none}
target: {urls: [%q], exporter: %q, checks: ["ok==true"], timeout: 5s}
load: {vus: [1], step: 30s, warmup: 10ms}
settle: {timeout: 5s, poll: 50ms}
cases:
  - name: first
    wait: {runner_limits: [4]}
  - name: second
`, srv.URL, fakeExporter(t))
	out := filepath.Join(t.TempDir(), "r.json")
	code, log := interruptWhen(t, "settled after", "experiment", "--spec", specFile(t, spec), "--out", out)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, log)
	}
	res, err := readSaved(out, experiment.ReadJSON)
	if err != nil {
		t.Fatalf("no partial result: %v\n%s", err, log)
	}
	if len(res.Cases) != 1 || res.Cases[0].Sweep == nil || !res.Cases[0].Sweep.Interrupted || res.Passed {
		t.Errorf("result %d cases, first %+v", len(res.Cases), res.Cases)
	}
}
