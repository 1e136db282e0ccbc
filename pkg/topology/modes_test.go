package topology

import (
	"strconv"
	"strings"
	"testing"
)

// fromEnv is a process read the way a platform reads one: argv and env.
func fromEnv(t *testing.T, name string, argv []string, env ...string) Process {
	t.Helper()
	p, ok := NewProcess(Spec{Argv: argv, Env: ReadEnv(env)})
	if !ok {
		t.Fatalf("%s is not n8n", name)
	}
	p.ID, p.Name = name+"-id", name
	p.Net = Network{Host: true, Namespace: name + "-id"}
	return p
}

var (
	workerArgv = []string{"n8n", "worker", "--concurrency=15"}
	mainArgv   = []string{"n8n", "start"}
)

func TestRunnersMode(t *testing.T) {
	cases := []struct {
		name     string
		env      []string
		launches bool
		limit    Setting[int]
		problems int
	}{
		{"unset is internal with the default limit", nil, true, Of(10), 0},
		{"internal with its own limit", []string{"N8N_RUNNERS_MODE=internal", "N8N_RUNNERS_MAX_CONCURRENCY=4"}, true, Of(4), 0},
		{"case and spaces", []string{"N8N_RUNNERS_MODE= Internal "}, true, Of(10), 0},
		{"external reads no limit", []string{"N8N_RUNNERS_MODE=external", "N8N_RUNNERS_MAX_CONCURRENCY=4"}, false, Setting[int]{}, 0},
		{"garbage is n8n's default", []string{"N8N_RUNNERS_MODE=sidecar"}, true, Of(10), 1},
	}
	for _, c := range cases {
		p := fromEnv(t, "w", workerArgv, c.env...)
		if p.Settings.LaunchesRunner() != c.launches || plain(p.Settings.RunnerLimit) != c.limit || len(p.Problems) != c.problems {
			t.Errorf("%s: launches %v limit %+v problems %v", c.name, p.Settings.LaunchesRunner(), p.Settings.RunnerLimit, p.Problems)
		}
	}
	p := fromEnv(t, "w", workerArgv, "N8N_RUNNERS_MODE=sidecar-"+"s3cr3t")
	if strings.Contains(strings.Join(p.Problems, " "), "s3cr3t") {
		t.Errorf("a problem quotes the value: %v", p.Problems)
	}
}

func TestMainSettings(t *testing.T) {
	cases := []struct {
		name        string
		env         []string
		regular     bool
		concurrency Setting[int]
		offload     Setting[bool]
	}{
		{"unset is regular without a slot limit", nil, true, Of(NoLimit), Setting[bool]{}},
		{"regular with a production limit", []string{"EXECUTIONS_MODE=regular", "N8N_CONCURRENCY_PRODUCTION_LIMIT=5"}, true, Of(5), Setting[bool]{}},
		{"regular, -1", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT=-1"}, true, Of(NoLimit), Setting[bool]{}},
		{"queue keeps manual executions", []string{"EXECUTIONS_MODE=queue"}, false, Setting[int]{}, Of(false)},
		{"queue offloads them", []string{"EXECUTIONS_MODE=queue", "OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true"}, false, Setting[int]{}, Of(true)},
	}
	for _, c := range cases {
		p := fromEnv(t, "m", mainArgv, c.env...)
		s := p.Settings
		if s.Regular() != c.regular || plain(s.Concurrency) != c.concurrency || plain(s.OffloadManual) != c.offload || len(p.Problems) != 0 {
			t.Errorf("%s: %+v problems %v", c.name, s, p.Problems)
		}
	}
	env := ReadEnv([]string{"N8N_RUNNERS_MODE=external"})
	env.SetUnknown("EXECUTIONS_MODE", "from Secret n8n/main-env")
	p, _ := NewProcess(Spec{Argv: mainArgv, Env: env})
	if p.Settings.Executions.Known() || p.Settings.Regular() || len(p.Problems) != 1 {
		t.Errorf("unknown mode: %+v %v", p.Settings, p.Problems)
	}
}

// N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED is read from the processes that
// queue executions, queue-mode mains and webhook processors, and from no
// other.
func TestKeepCompleted(t *testing.T) {
	webhookArgv := []string{"n8n", "webhook"}
	cases := []struct {
		name     string
		argv     []string
		env      []string
		queues   bool
		keep     Setting[int]
		problems int
	}{
		{"queue main, unset: n8n's 0", mainArgv, []string{"EXECUTIONS_MODE=queue"}, true, Of(0), 0},
		{"queue main keeps 1000", mainArgv, []string{"EXECUTIONS_MODE=queue", "N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED= 1000"}, true, Of(1000), 0},
		{"queue main, malformed", mainArgv, []string{"EXECUTIONS_MODE=queue", "N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=-3"}, true, Of(0), 1},
		{"regular main queues nothing", mainArgv, []string{"N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=1000"}, false, Setting[int]{}, 0},
		{"webhook processor", webhookArgv, []string{"N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=50"}, true, Of(50), 0},
		{"worker", workerArgv, []string{"N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=50"}, false, Setting[int]{}, 0},
	}
	for _, c := range cases {
		p := fromEnv(t, "p", c.argv, c.env...)
		if p.Queues() != c.queues || plain(p.Settings.KeepCompleted) != c.keep || len(p.Problems) != c.problems {
			t.Errorf("%s: queues %v, keep %+v, problems %v", c.name, p.Queues(), p.Settings.KeepCompleted, p.Problems)
		}
	}
	env := ReadEnv([]string{"EXECUTIONS_MODE=queue"})
	env.SetUnknown("N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED", "from Secret n8n/main-env")
	p, _ := NewProcess(Spec{Argv: mainArgv, Env: env})
	if k := p.Settings.KeepCompleted; k.Known() || !strings.Contains(k.Unknown, "from Secret n8n/main-env") || len(p.Problems) != 1 {
		t.Errorf("unknown keep: %+v %v", k, p.Problems)
	}
}

// A worker in internal mode is served by its own runner; in external mode
// only by the runners that dial it. A regular-mode main is the worker of
// its own cluster; a queue-mode main is not a worker, and a runner that
// dials it is filed under it, as is its internal runner.
func TestPairShapes(t *testing.T) {
	top := Pair([]Process{
		fromEnv(t, "w-internal", workerArgv, "N8N_RUNNERS_MAX_CONCURRENCY=7", "N8N_RUNNERS_BROKER_PORT=5689"),
		fromEnv(t, "w-external", workerArgv, "N8N_RUNNERS_MODE=external", "N8N_RUNNERS_BROKER_PORT=5699"),
		fromEnv(t, "w-bare", workerArgv, "N8N_RUNNERS_MODE=external", "N8N_RUNNERS_BROKER_PORT=5709"),
		fromEnv(t, "r-external", []string{"node", "task-runner/dist/start.js"}, "N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5699"),
		fromEnv(t, "r-both", []string{"node", "task-runner/dist/start.js"}, "N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=2"),
		fromEnv(t, "main", mainArgv, "EXECUTIONS_MODE=queue"),
	})
	want := map[string]string{
		"w-internal": "w-internal/internal:7:internal,r-both:2:host-port",
		"w-external": "r-external:10:host-port",
		"w-bare":     "",
	}
	for _, w := range top.Workers {
		var got []string
		for _, a := range w.Runners {
			got = append(got, a.Runner.Name+":"+strconv.Itoa(a.Runner.Settings.RunnerLimit.Value)+":"+a.Route())
		}
		if strings.Join(got, ",") != want[w.Worker.Name] {
			t.Errorf("%s: runners %v, want %s", w.Worker.Name, got, want[w.Worker.Name])
		}
	}
	if len(top.Workers) != 3 || len(top.Manual) != 1 || len(top.Mains) != 1 || len(top.Unpaired) != 0 {
		t.Fatalf("topology %+v", top)
	}
	if m := top.Manual[0]; m.Worker.Name != "main" || len(m.Runners) != 1 || !m.Runners[0].Internal() || m.Runners[0].Target != "main" {
		t.Errorf("queue-mode main %+v", m)
	}

	regular := fromEnv(t, "solo", mainArgv, "N8N_RUNNERS_MODE=external")
	top = Pair([]Process{regular, fromEnv(t, "r", []string{"node", "task-runner/dist/start.js"})})
	if len(top.Workers) != 1 || top.Workers[0].Worker.Role != RoleMain || len(top.Workers[0].Runners) != 1 ||
		top.Workers[0].Runners[0].Runner.Name != "r" || len(top.Manual) != 0 || len(top.Mains) != 1 {
		t.Errorf("regular mode: %+v", top)
	}
}
