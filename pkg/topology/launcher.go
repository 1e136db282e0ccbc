package topology

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// TaskType is the kind of Code task a runner runs. The broker gives a
// task only to an offer of its own type.
type TaskType string

// The task types n8n's runners serve.
const (
	TaskJavaScript TaskType = "javascript"
	TaskPython     TaskType = "python"
)

// Defaults of the runners image (n8n 2.41.1, launcher 1.4.3).
const (
	// DefaultPythonLimit is the Python runner's N8N_RUNNERS_MAX_CONCURRENCY
	// default; the JavaScript runner's is DefaultRunnerLimit.
	DefaultPythonLimit = 5
	// DefaultLauncherAutoShutdown is the launcher's
	// N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT default, in seconds: its runner
	// exits after that long idle. A runner started on its own defaults to
	// 0, never.
	DefaultLauncherAutoShutdown = 15
	// DefaultRunnersConfigPath is where the launcher reads its runners'
	// config unless N8N_RUNNERS_CONFIG_PATH moves it.
	DefaultRunnersConfigPath = "/etc/n8n-task-runners.json"
)

const (
	limitVar    = "N8N_RUNNERS_MAX_CONCURRENCY"
	shutdownVar = "N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT"
)

// imageTypes are the runners image's default arguments.
var imageTypes = []TaskType{TaskJavaScript, TaskPython}

// TaskPool is the runner kept for one task type: a launcher's per type,
// or a runner's own.
type TaskPool struct {
	Type  TaskType
	Limit Setting[int]
	// AutoShutdown is N8N_RUNNERS_AUTO_SHUTDOWN_TIMEOUT as the runner gets
	// it, in seconds; 0 never shuts down.
	AutoShutdown Setting[int]
}

// RunnersConfig is a launcher's config file as the platform found it.
type RunnersConfig struct {
	Data []byte // the file's bytes
	From string // where it was read, e.g. "ConfigMap n8n/runners"
}

// runnerEntry is what the exporter reads of one entry of the config file:
// never env-overrides other than the two settings below.
type runnerEntry struct {
	Type       TaskType          `json:"runner-type"`
	AllowedEnv []string          `json:"allowed-env"`
	Overrides  map[string]string `json:"env-overrides"`
}

// launcherTypes reads the runner types a launcher manages from its
// arguments: the words after task-runner-launcher, or the whole argv
// when only args were given; none at all is the image's default.
func (r *reader) launcherTypes(argv []string) []TaskType {
	if i := indexArg(argv, isLauncherArg); i >= 0 {
		argv = argv[i+1:]
	}
	var out []TaskType
	for _, a := range argv {
		if t := TaskType(a); (t == TaskJavaScript || t == TaskPython) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		if len(argv) > 0 {
			r.problem("the launcher's arguments name no runner type (javascript, python); taken as the image's default")
		}
		return imageTypes
	}
	return out
}

// launcherPools reads each type's limit and idle shutdown as the launcher
// hands them to its runner: the config file's env-overrides win; else the
// container's env where allowed-env passes it; else the runner's default.
// Without a readable file, the image's is assumed: both settings allowed,
// none overridden.
func (r *reader) launcherPools(argv []string, cfg *RunnersConfig) []TaskPool {
	entries := r.runnersConfig(cfg)
	var pools []TaskPool
	for _, t := range r.launcherTypes(argv) {
		e, ok := entries[t]
		if entries != nil && !ok {
			r.problem("the runners config from " + cfg.From + " has no entry for " + string(t) + "; the launcher refuses to start")
			continue
		}
		def := DefaultRunnerLimit
		if t == TaskPython {
			def = DefaultPythonLimit
		}
		pools = append(pools, TaskPool{Type: t, Limit: r.passed(e, limitVar, def, 1),
			AutoShutdown: r.passed(e, shutdownVar, DefaultLauncherAutoShutdown, 0)})
	}
	return pools
}

// runnersConfig parses the file by type; nil when there is none to read.
func (r *reader) runnersConfig(cfg *RunnersConfig) map[TaskType]*runnerEntry {
	if cfg == nil {
		return nil
	}
	var f struct {
		Runners []runnerEntry `json:"task-runners"`
	}
	if err := json.Unmarshal(cfg.Data, &f); err != nil || len(f.Runners) == 0 {
		r.problem("the runners config from " + cfg.From + " is not the launcher's JSON with task-runners; the image's is assumed")
		return nil
	}
	out := map[TaskType]*runnerEntry{}
	for i := range f.Runners {
		if _, seen := out[f.Runners[i].Type]; !seen {
			out[f.Runners[i].Type] = &f.Runners[i]
		}
	}
	return out
}

// passed is key as one runner gets it from entry e (nil: the image's).
func (r *reader) passed(e *runnerEntry, key string, def, low int) Setting[int] {
	if e != nil {
		if v, ok := e.Overrides[key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err == nil && n >= low {
				return Setting[int]{Value: n, Var: key, From: SourceRunnersConfig}
			}
			r.problem("the runners config's env-overrides " + key + " is not an integer of at least " + strconv.Itoa(low) + "; using " + strconv.Itoa(def))
			return byDefault(key, def)
		}
		if !slices.Contains(e.AllowedEnv, key) {
			return byDefault(key, def)
		}
	}
	return r.intAtLeast(key, def, low, "an integer of at least "+strconv.Itoa(low))
}

// runnerPools are a task runner's pools: a launcher's per type, with its
// JavaScript limit as RunnerLimit (0 when it runs no JavaScript); a
// runner's one JavaScript pool, which never shuts down idle unless told.
func (r *reader) runnerPools(role Role, argv []string, s *Settings) {
	if role == RoleRunner {
		s.RunnerLimit = r.positiveInt(limitVar, DefaultRunnerLimit)
		s.TaskPools = []TaskPool{{Type: TaskJavaScript, Limit: s.RunnerLimit, AutoShutdown: r.seconds(shutdownVar, 0)}}
		return
	}
	s.TaskPools = r.launcherPools(argv, r.config)
	s.RunnerLimit = byDefault(limitVar, 0)
	for _, p := range s.TaskPools {
		if p.Type == TaskJavaScript {
			s.RunnerLimit = p.Limit
		}
	}
}

// RunnersConfigPath is where a launcher with env reads its config file.
func RunnersConfigPath(env Env) string {
	if v, _, why := env.lookup("N8N_RUNNERS_CONFIG_PATH"); why == "" && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	return DefaultRunnersConfigPath
}

// SetRunnerLimit sets the JavaScript limit, RunnerLimit and its pool's,
// as something other than the environment found it (a probe).
func (s *Settings) SetRunnerLimit(l Setting[int]) {
	s.RunnerLimit = l
	for i := range s.TaskPools {
		if s.TaskPools[i].Type == TaskJavaScript {
			s.TaskPools[i].Limit = l
		}
	}
}
