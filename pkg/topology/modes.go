package topology

import "strings"

// RunnersMode is N8N_RUNNERS_MODE: where a main's or worker's Code tasks
// run. The zero value, as a Process built by hand has it, launches no
// runner of its own.
type RunnersMode string

const (
	// RunnersInternal (n8n's default): the process launches one runner of
	// its own, a child Node process in its container, with the process's
	// own N8N_RUNNERS_MAX_CONCURRENCY.
	RunnersInternal RunnersMode = "internal"
	// RunnersExternal means only runners that dial the process's broker serve it.
	RunnersExternal RunnersMode = "external"
)

// ExecutionsMode is main's EXECUTIONS_MODE.
type ExecutionsMode string

const (
	// ExecutionsRegular (n8n's default): main runs every execution itself,
	// on its own broker.
	ExecutionsRegular ExecutionsMode = "regular"
	// ExecutionsQueue means workers run production executions from Bull's
	// queue; main runs manual ones unless they are offloaded.
	ExecutionsQueue ExecutionsMode = "queue"
)

// NoLimit is a regular-mode main's Concurrency when
// N8N_CONCURRENCY_PRODUCTION_LIMIT is -1 or unset: no slot limit.
const NoLimit = -1

// HostsExecutions reports whether the role runs executions itself, and so
// may launch a runner of its own.
func (r Role) HostsExecutions() bool { return r == RoleMain || r == RoleWorker }

// LaunchesRunner reports whether the process launches an internal runner.
func (s Settings) LaunchesRunner() bool {
	return s.RunnersMode.Known() && s.RunnersMode.Value == RunnersInternal
}

// Regular reports whether a main runs its executions itself.
func (s Settings) Regular() bool {
	return s.Executions.Known() && s.Executions.Value == ExecutionsRegular
}

// enumSetting reads key as one of allowed, case-insensitively; unset or
// empty is def, anything else def with a problem.
func enumSetting[T ~string](r *reader, key string, def T, allowed ...T) Setting[T] {
	v, set, why := r.env.lookup(key)
	switch {
	case why != "":
		return unknownAs[T](r, key, why)
	case !set || strings.TrimSpace(v) == "":
		return byDefault(key, def)
	}
	got := T(strings.ToLower(strings.TrimSpace(v)))
	for _, a := range allowed {
		if got == a {
			return read(r, key, got)
		}
	}
	r.problem(key + " is not one of n8n's values; taken as " + string(def) + ", n8n's default")
	return byDefault(key, def)
}

// boolSetting reads key as n8n does: "true" or "1" is true, anything else
// false.
func (r *reader) boolSetting(key string) Setting[bool] {
	v, set, why := r.env.lookup(key)
	switch {
	case why != "":
		return unknownAs[bool](r, key, why)
	case !set:
		return byDefault(key, false)
	}
	v = strings.ToLower(strings.TrimSpace(v))
	return read(r, key, v == "true" || v == "1")
}

// mainSettings reads the execution mode and what depends on it: the
// production limit in regular mode, the offload of manual executions and
// the completed jobs Bull keeps in queue mode.
func (r *reader) mainSettings(s *Settings) {
	s.Executions = enumSetting(r, "EXECUTIONS_MODE", ExecutionsRegular, ExecutionsRegular, ExecutionsQueue)
	switch {
	case s.Regular():
		s.Concurrency = r.productionLimit()
	case s.Executions.Known():
		s.OffloadManual = r.boolSetting("OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS")
		s.KeepCompleted = r.keepCompleted()
	}
}

// DefaultKeepCompleted is N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED's
// default (n8n 2.23.2 and 2.41.1).
const DefaultKeepCompleted = 0

// keepCompleted reads N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED, a whole
// number of jobs.
func (r *reader) keepCompleted() Setting[int] {
	return r.intAtLeast("N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED", DefaultKeepCompleted, 0, "a whole number of jobs")
}

// Queues reports whether the process puts executions on Bull's queue and
// waits there for their results: a queue-mode main or a webhook processor.
func (p Process) Queues() bool {
	return p.Role == RoleWebhook || p.Role == RoleMain && p.Settings.Executions.Known() && !p.Settings.Regular()
}

// runnerSettings reads N8N_RUNNERS_MODE and, in internal mode, the limit
// of the runner the process launches.
func (r *reader) runnerSettings(s *Settings) {
	s.RunnersMode = enumSetting(r, "N8N_RUNNERS_MODE", RunnersInternal, RunnersInternal, RunnersExternal)
	if s.LaunchesRunner() {
		s.RunnerLimit = r.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit)
		s.RunnerShutdownTimeout = r.seconds("N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout)
	}
}
