package topology

import (
	"strings"
	"testing"
)

// The runners image's config file, as n8n 2.41.1 ships it, less the keys
// the exporter never reads.
const imageConfig = `{"task-runners": [
 {"runner-type": "javascript", "allowed-env": ["PATH", "N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT", "N8N_RUNNERS_MAX_CONCURRENCY"],
  "env-overrides": {"NODE_FUNCTION_ALLOW_BUILTIN": "crypto"}},
 {"runner-type": "python", "allowed-env": ["PATH", "N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT", "N8N_RUNNERS_MAX_CONCURRENCY"],
  "env-overrides": {"N8N_RUNNERS_STDLIB_ALLOW": ""}}]}`

type poolWant struct {
	typ         TaskType
	limit, idle int
	limitFrom   Source
}

func launcher(t *testing.T, argv []string, cfg *RunnersConfig, env ...string) Process {
	t.Helper()
	p, ok := NewProcess(Spec{Argv: argv, Image: "n8nio/runners:2.41.1", Env: ReadEnv(env), RunnersConfig: cfg})
	if !ok || p.Role != RoleLauncher {
		t.Fatalf("%v: role %q", argv, p.Role)
	}
	return p
}

func checkPools(t *testing.T, name string, p Process, want []poolWant) {
	t.Helper()
	if len(p.Settings.TaskPools) != len(want) {
		t.Fatalf("%s: pools %+v, want %d", name, p.Settings.TaskPools, len(want))
	}
	for i, w := range want {
		got := p.Settings.TaskPools[i]
		if got.Type != w.typ || got.Limit.Value != w.limit || got.Limit.From != w.limitFrom || got.AutoShutdown.Value != w.idle {
			t.Errorf("%s: pool %d %+v, want %+v", name, i, got, w)
		}
	}
}

// A launcher keeps one runner per type it is given, each with its own
// limit: the env through allowed-env, the config's env-overrides winning,
// else JavaScript's 10 and Python's 5; its JavaScript limit is RunnerLimit.
func TestLauncherPools(t *testing.T) {
	tini := []string{"tini", "--", "/usr/local/bin/task-runner-launcher", "javascript", "python"}
	p := launcher(t, tini, nil)
	checkPools(t, "image defaults", p, []poolWant{{TaskJavaScript, 10, 15, SourceDefault}, {TaskPython, 5, 15, SourceDefault}})
	if p.Settings.RunnerLimit.Value != 10 || len(p.Problems) != 0 {
		t.Errorf("runner limit %+v problems %v", p.Settings.RunnerLimit, p.Problems)
	}

	p = launcher(t, nil, &RunnersConfig{Data: []byte(imageConfig), From: "ConfigMap n8n/runners"}, "N8N_RUNNERS_MAX_CONCURRENCY=4", "N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT=0")
	checkPools(t, "env through allowed-env", p, []poolWant{{TaskJavaScript, 4, 0, SourceEnv}, {TaskPython, 4, 0, SourceEnv}})

	mixed := `{"task-runners": [
	 {"runner-type": "javascript", "allowed-env": ["N8N_RUNNERS_MAX_CONCURRENCY"], "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "3"}},
	 {"runner-type": "python", "allowed-env": [], "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "2", "N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT": "30"}}]}`
	p = launcher(t, []string{"task-runner-launcher", "javascript", "python"}, &RunnersConfig{Data: []byte(mixed), From: "file /srv/runners.json"},
		"N8N_RUNNERS_MAX_CONCURRENCY=8")
	checkPools(t, "overrides win", p, []poolWant{{TaskJavaScript, 3, 15, SourceRunnersConfig}, {TaskPython, 2, 30, SourceRunnersConfig}})
	if p.Settings.RunnerLimit.Value != 3 || p.Settings.RunnerLimit.From != SourceRunnersConfig {
		t.Errorf("runner limit %+v", p.Settings.RunnerLimit)
	}

	// A type whose allowed-env leaves the limit out never sees the env's.
	notPassed := `{"task-runners": [{"runner-type": "python", "allowed-env": ["PATH"]}]}`
	p = launcher(t, []string{"python"}, &RunnersConfig{Data: []byte(notPassed), From: "x"}, "N8N_RUNNERS_MAX_CONCURRENCY=8")
	checkPools(t, "not allowed", p, []poolWant{{TaskPython, 5, 15, SourceDefault}})
	if p.Settings.RunnerLimit.Value != 0 || !p.Settings.RunnerLimit.Known() {
		t.Errorf("a Python-only launcher's JavaScript limit %+v, want 0", p.Settings.RunnerLimit)
	}
}

// Bad files and arguments are problems with the image's behaviour
// assumed; a value in env-overrides is never quoted.
func TestLauncherPoolsProblems(t *testing.T) {
	for _, c := range []struct {
		name, cfg string
		argv      []string
		pools     int
		problem   string
	}{
		{"not JSON", "{oops", []string{"javascript"}, 1, "is not the launcher's JSON"},
		{"no runners", `{"task-runners": []}`, []string{"javascript"}, 1, "is not the launcher's JSON"},
		{"type missing", `{"task-runners": [{"runner-type": "javascript"}]}`, []string{"javascript", "python"}, 1, "has no entry for python"},
		{"bad override", `{"task-runners": [{"runner-type": "javascript", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "s3cr3t"}}]}`, []string{"javascript"}, 1, "env-overrides N8N_RUNNERS_MAX_CONCURRENCY"},
		{"no type in args", imageConfig, []string{"task-runner-launcher", "ruby"}, 2, "name no runner type"},
	} {
		p := launcher(t, c.argv, &RunnersConfig{Data: []byte(c.cfg), From: "ConfigMap n8n/r"}, "N8N_RUNNERS_TASK_BROKER_URI=http://w:5679")
		probs := strings.Join(p.Problems, "\n")
		if len(p.Settings.TaskPools) != c.pools || !strings.Contains(probs, c.problem) || strings.Contains(probs, "s3cr3t") {
			t.Errorf("%s: pools %+v problems %q", c.name, p.Settings.TaskPools, p.Problems)
		}
	}
	if got := RunnersConfigPath(ReadEnv([]string{"N8N_RUNNERS_CONFIG_PATH= /srv/r.json "})); got != "/srv/r.json" {
		t.Errorf("config path %q", got)
	}
	if got := RunnersConfigPath(ReadEnv(nil)); got != DefaultRunnersConfigPath {
		t.Errorf("default config path %q", got)
	}
}

// A runner on its own is one JavaScript pool that never shuts down idle
// unless told.
func TestRunnerPool(t *testing.T) {
	p, _ := NewProcess(Spec{Argv: []string{"node", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"}, Env: ReadEnv([]string{"N8N_RUNNERS_MAX_CONCURRENCY=3"})})
	if ps := p.Settings.TaskPools; len(ps) != 1 || ps[0].Type != TaskJavaScript || ps[0].Limit.Value != 3 || ps[0].AutoShutdown.Value != 0 {
		t.Errorf("pools %+v", ps)
	}
}

func FuzzRunnersConfig(f *testing.F) {
	f.Add([]byte(imageConfig), "javascript python")
	f.Add([]byte(`{"task-runners": [{"runner-type": "python", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "-1"}}]}`), "python")
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		p, _ := NewProcess(Spec{Argv: append([]string{"task-runner-launcher"}, strings.Fields(args)...), Env: ReadEnv(nil),
			RunnersConfig: &RunnersConfig{Data: data, From: "fuzz"}})
		for _, pool := range p.Settings.TaskPools {
			if pool.Limit.Value < 1 || pool.AutoShutdown.Value < 0 {
				t.Fatalf("pool %+v from %q", pool, data)
			}
		}
	})
}
