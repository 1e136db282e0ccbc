package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// Each task holds its runner slot for about 1.01 s, not 1.00 s: a slot's
// whole cycle (task, result, next offer and accept) counted in whole VU
// cycles read 1.007 to 1.018 s at limits 2, 5 and 10 on 2.23.2 and 2.41.1
// (the runner-limit experiment, and this test's 1.98/s at limit 2).
const measuredTaskSeconds = 1.01

// foundationTolerance is this test's bound on measured ÷ predicted: over
// four times the 1.1 % spread of those cycles, for a slower machine.
const foundationTolerance = 0.05

// TestRunnerLimitSetsThroughput is the seed's isolation experiment in small:
// worker 15, 20 closed-loop VUs, 1 s tasks, runner limit 2, measured by
// loadctl's engine in-process (lab.ClosedLoop) rather than by the exporter.
// The runner-limit experiment runs the full table through loadctl.
func TestRunnerLimitSetsThroughput(t *testing.T) {
	for _, limit := range []int{2} {
		eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": strconv.Itoa(limit)})
		res := lab.ClosedLoop(context.Background(), must(t, eps, "webhook"), lab.BenchBody(1000, 0), 20, 6*time.Second, 20*time.Second)
		want := float64(min(limit, 15)) / measuredTaskSeconds
		t.Logf("runner limit %d: measured %.2f/s (%d ok, %d failed in %v, counted in %s), predicted %.2f/s, ratio %.3f",
			limit, res.PerSec, res.OK, res.Failed, res.Window, res.Basis, want, res.PerSec/want)
		if res.Failed != 0 {
			t.Errorf("limit %d: %d failed requests, e.g. %v", limit, res.Failed, res.Errors)
		}
		ok := math.Abs(res.PerSec-want)/want <= foundationTolerance
		figure(t, fmt.Sprintf("limit %d: measured ÷ min(runner, worker)/%.2f s", limit, measuredTaskSeconds), fmt.Sprintf("1 ± %.2f", foundationTolerance), res.PerSec/want, ok)
		if !ok {
			t.Errorf("limit %d: measured %.2f/s, want %.2f/s ±%.0f%%", limit, res.PerSec, want, 100*foundationTolerance)
		}
	}
}

// TestLabShapes checks the interface other issues rely on: two runners get
// their own containers with their limits, and a runner change leaves n8n be.
func TestLabShapes(t *testing.T) {
	upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "3,2"})
	before := containerIDs(t)
	for name, want := range map[string]string{"n8n-lab-runner-1-1": "3", "n8n-lab-runner-1-2": "2"} {
		if got := inspectEnv(t, name)["N8N_RUNNERS_MAX_CONCURRENCY"]; got != want {
			t.Errorf("%s: N8N_RUNNERS_MAX_CONCURRENCY=%q, want %s", name, got, want)
		}
	}
	if args := inspectArgs(t, "n8n-lab-worker-1"); !slices.Contains(args, "--concurrency=7") {
		t.Errorf("worker args %v lack --concurrency=7", args)
	}

	upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "7", "LAB_RUNNER_LIMITS": "4"})
	after := containerIDs(t)
	for _, name := range []string{"n8n-lab-main", "n8n-lab-worker-1"} {
		if before[name] == "" || before[name] != after[name] {
			t.Errorf("%s was restarted by a runner-limit change (%q → %q)", name, before[name], after[name])
		}
	}
	if _, ok := after["n8n-lab-runner-1-2"]; ok {
		t.Error("the second runner outlived LAB_RUNNER_LIMITS=4")
	}
	if got := inspectEnv(t, "n8n-lab-runner-1-1")["N8N_RUNNERS_MAX_CONCURRENCY"]; got != "4" {
		t.Errorf("runner limit after change: %q, want 4", got)
	}
}

func docker(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("docker", append([]string{"-H", lab.DockerHost()}, args...)...).Output()
	if err != nil {
		t.Fatalf("docker %v: %v", args, err)
	}
	return out
}

// containerIDs maps the lab's container names to their full IDs.
func containerIDs(t *testing.T) map[string]string {
	ids := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(docker(t, "ps", "--no-trunc", "--filter", "label=io.n8n-ceiling.lab=1", "--format", "{{.Names}} {{.ID}}"))), "\n") {
		if name, id, ok := strings.Cut(line, " "); ok {
			ids[name] = id
		}
	}
	return ids
}

type inspected struct {
	Config struct {
		Env []string
		Cmd []string
	}
}

func inspect(t *testing.T, name string) inspected {
	var out []inspected
	if err := json.Unmarshal(docker(t, "inspect", name), &out); err != nil || len(out) != 1 {
		t.Fatalf("inspect %s: %v", name, err)
	}
	return out[0]
}

// inspectEnv returns only the variables the test asks about by name; the
// whole env holds secrets and is never logged.
func inspectEnv(t *testing.T, name string) map[string]string {
	env := map[string]string{}
	for _, kv := range inspect(t, name).Config.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

func inspectArgs(t *testing.T, name string) []string { return inspect(t, name).Config.Cmd }
