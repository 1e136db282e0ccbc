package topology

import "strings"

// whitelist holds the only env keys whose values are read. Every other
// value in a process's environment (tokens, keys, passwords) is dropped
// without being copied.
var whitelist = map[string]bool{
	"N8N_CONCURRENCY_PRODUCTION_LIMIT":         true,
	"N8N_RUNNERS_MAX_CONCURRENCY":              true,
	"N8N_RUNNERS_BROKER_PORT":                  true,
	"N8N_RUNNERS_TASK_BROKER_URI":              true,
	"N8N_RUNNERS_MODE":                         true,
	"N8N_RUNNERS_TASK_REQUEST_TIMEOUT":         true,
	"N8N_RUNNERS_TASK_ACCEPT_TIMEOUT":          true,
	"N8N_GRACEFUL_SHUTDOWN_TIMEOUT":            true,
	"QUEUE_WORKER_TIMEOUT":                     true,
	"N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT":    true,
	"EXECUTIONS_MODE":                          true,
	"N8N_WORKER_POOLS_ENABLED":                 true,
	"N8N_WORKER_POOL_NAME":                     true,
	"OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS":     true,
	"N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED": true,
	"N8N_PORT":        true,
	"PROBE_LISTEN":    true,
	"PROBE_UPSTREAM":  true,
	"PROBE_NAME":      true,
	"EXPORTER_LISTEN": true,
}

// Whitelisted reports whether key's value may be read.
func Whitelisted(key string) bool { return whitelist[key] }

// Env is what a platform tells topology about a process's environment: the
// names of its variables, the values of the whitelisted ones, and the
// whitelisted ones it could not read, with why (a value from a Kubernetes
// Secret). The zero Env is empty and ready to use.
type Env struct {
	names    map[string]bool
	values   map[string]string
	unknown  map[string]string
	from     map[string]Source // where a value came from when not the env itself
	problems []string          // declarations that declare nothing read
}

// ReadEnv reads "KEY=VALUE" entries, as Docker's inspect lists them.
func ReadEnv(entries []string) Env {
	var e Env
	for _, kv := range entries {
		k, v, _ := strings.Cut(kv, "=")
		e.Set(k, v)
	}
	return e
}

// Set records key, and its value only when key is whitelisted.
func (e *Env) Set(key, value string) { e.SetFrom(key, value, SourceEnv) }

// SetFrom records key, and its value, from src, only when key is
// whitelisted.
func (e *Env) SetFrom(key, value string, src Source) {
	e.name(key)
	if !whitelist[key] {
		return
	}
	if e.values == nil {
		e.values = map[string]string{}
	}
	e.values[key] = value
	delete(e.from, key)
	if src != SourceEnv {
		if e.from == nil {
			e.from = map[string]Source{}
		}
		e.from[key] = src
	}
}

// SetUnknown records that key is set but its value cannot be read, and
// why, e.g. "from Secret n8n/runner-env"; the reason is kept only for a
// whitelisted key and must not hold the value.
func (e *Env) SetUnknown(key, reason string) {
	e.name(key)
	if !whitelist[key] {
		return
	}
	if e.unknown == nil {
		e.unknown = map[string]string{}
	}
	e.unknown[key] = reason
}

// MayHide records that a source the platform cannot read (a Kubernetes
// Secret behind envFrom, whose keys are not known) may set any key that
// starts with prefix: each whitelisted such key that nothing readable set
// reads as unknown, with reason. Call it after every readable source. The
// keys do not count as set: Has stays false for them, so they never change
// a process's role.
func (e *Env) MayHide(prefix, reason string) {
	for key := range whitelist {
		if !strings.HasPrefix(key, prefix) || e.names[key] {
			continue
		}
		if e.unknown == nil {
			e.unknown = map[string]string{}
		}
		if _, ok := e.unknown[key]; !ok {
			e.unknown[key] = reason
		}
	}
}

func (e *Env) name(key string) {
	if e.names == nil {
		e.names = map[string]bool{}
	}
	e.names[key] = true
}

// Has reports whether the variable is set, whatever its value.
func (e Env) Has(key string) bool { return e.names[key] }

// lookup returns a whitelisted key's value; unknown is the reason when the
// platform could not read it.
func (e Env) lookup(key string) (value string, set bool, unknown string) {
	if r, ok := e.unknown[key]; ok {
		return "", true, r
	}
	v, ok := e.values[key]
	return v, ok, ""
}
