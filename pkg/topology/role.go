package topology

import (
	"path"
	"strings"
)

// Role is what an n8n process does.
type Role string

// The roles.
const (
	RoleNone     Role = "" // not an n8n process
	RoleMain     Role = "main"
	RoleWorker   Role = "worker"
	RoleWebhook  Role = "webhook"
	RoleRunner   Role = "runner"
	RoleLauncher Role = "launcher"
	RoleProbe    Role = "probe" // n8n-ceiling's broker probe sidecar
)

// RunsTasks reports whether the role executes Code tasks for a broker.
func (r Role) RunsTasks() bool { return r == RoleRunner || r == RoleLauncher }

// HostsBroker reports whether the role runs n8n's in-process task broker.
func (r Role) HostsBroker() bool { return r == RoleMain || r == RoleWorker || r == RoleWebhook }

// Spec is what a platform knows of a process before classification: the
// process line, the image and the environment.
type Spec struct {
	Argv  []string // Docker: inspect's Path then Args; Kubernetes: command then args
	Image string   // e.g. "n8nio/n8n:2.23.2"
	Env   Env
	// RunnersConfig is a launcher's config file, where the platform could
	// read it; nil assumes the runners image's own.
	RunnersConfig *RunnersConfig
}

// Classify returns the process's role from its argv, image and the names
// (never the values) of its env variables, or RoleNone for anything else.
func Classify(s Spec) Role {
	switch {
	case s.Env.Has("PROBE_UPSTREAM") || s.Env.Has("PROBE_LISTEN"):
		return RoleProbe
	case anyArg(s.Argv, isLauncherArg) || imageRepo(s.Image) == "n8nio/runners":
		return RoleLauncher
	case anyArg(s.Argv, isRunnerArg):
		return RoleRunner
	}
	if i := indexArg(s.Argv, isN8nBinary); i >= 0 {
		return roleOfSubcommand(s.Argv[i+1:])
	}
	if imageRepo(s.Image) == "n8nio/n8n" {
		// The official image's entrypoint passes its args to n8n.
		return roleOfSubcommand(afterEntrypoint(s.Argv))
	}
	return RoleNone
}

// roleOfSubcommand reads the n8n CLI's first non-flag argument. Other
// subcommands (import:workflow, execute, …) are one-off jobs, not servers.
func roleOfSubcommand(args []string) Role {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		switch a {
		case "start":
			return RoleMain
		case "worker":
			return RoleWorker
		case "webhook":
			return RoleWebhook
		}
		return RoleNone
	}
	return RoleMain // bare `n8n` starts main
}

// afterEntrypoint drops tini and the image's entrypoint script from argv.
func afterEntrypoint(argv []string) []string {
	for i, a := range argv {
		switch path.Base(a) {
		case "tini", "--", "docker-entrypoint.sh", "sh":
			continue
		default:
			return argv[i:]
		}
	}
	return nil
}

func isN8nBinary(a string) bool { return !strings.HasSuffix(a, "/") && path.Base(a) == "n8n" }

func isLauncherArg(a string) bool { return strings.Contains(a, "task-runner-launcher") }

func isRunnerArg(a string) bool {
	return strings.Contains(a, "@n8n/task-runner") || strings.HasSuffix(a, "task-runner/dist/start.js")
}

func anyArg(argv []string, f func(string) bool) bool { return indexArg(argv, f) >= 0 }

func indexArg(argv []string, f func(string) bool) int {
	for i, a := range argv {
		if f(a) {
			return i
		}
	}
	return -1
}

// imageRepo strips registry, tag and digest: "docker.n8n.io/n8nio/n8n:2.23.2"
// → "n8nio/n8n".
func imageRepo(image string) string {
	if i := strings.IndexByte(image, '@'); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	parts := strings.Split(image, "/")
	if len(parts) > 2 && strings.ContainsAny(parts[0], ".:") {
		parts = parts[1:]
	}
	return strings.Join(parts, "/")
}
