package topology

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Source is where a setting's value came from.
type Source string

// The sources, as `/` names them.
const (
	SourceEnv       Source = "env"       // the container's environment, written out
	SourceConfigMap Source = "configmap" // a Kubernetes ConfigMap the environment takes it from
	SourceFlag      Source = "flag"      // the process's command line (--concurrency)
	SourceDeclared  Source = "declared"  // an n8n-ceiling.io/<VAR> container label or pod annotation
	SourceObserved  Source = "observed"  // what a broker probe saw the runner offer
	SourceDefault   Source = "default"   // n8n's default: unset, or malformed
)

// DeclarePrefix starts the key of a container label or pod annotation
// that declares a setting the exporter cannot read from the environment:
// "n8n-ceiling.io/N8N_RUNNERS_MAX_CONCURRENCY".
const DeclarePrefix = "n8n-ceiling.io/"

// ConcurrencyFlag is the worker's command-line flag for its concurrency.
const ConcurrencyFlag = "--concurrency"

// Declares reports whether a label or annotation key declares a setting
// the exporter reads; its value may then be kept.
func Declares(key string) bool {
	v, ok := strings.CutPrefix(key, DeclarePrefix)
	return ok && declarable(v)
}

// declarable reports whether a label may declare key: an n8n setting the
// exporter reads. A probe's own settings are its environment's alone.
func declarable(key string) bool {
	return whitelist[key] && !strings.HasPrefix(key, "PROBE_") && key != "EXPORTER_LISTEN"
}

// Declare applies the settings that labels (a container's labels, a pod's
// annotations) declare under DeclarePrefix. A declaration fills only a key
// the environment leaves unset or unreadable (a Secret); where the
// environment gives a value, that value stands. A declared key the
// exporter does not read is a problem, named by its key.
func (e *Env) Declare(labels map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		key, ok := strings.CutPrefix(k, DeclarePrefix)
		switch {
		case !ok:
		case !declarable(key):
			e.problems = append(e.problems, k+" declares no setting the exporter reads")
		case e.readable(key):
		default:
			delete(e.unknown, key)
			e.SetFrom(key, labels[k], SourceDeclared)
		}
	}
}

// readable reports whether the environment gives key a value.
func (e Env) readable(key string) bool {
	_, ok := e.values[key]
	return ok && e.unknown[key] == ""
}

// source is where the environment's value of key came from.
func (e Env) source(key string) Source {
	if s, ok := e.from[key]; ok {
		return s
	}
	if _, ok := e.values[key]; ok {
		return SourceEnv
	}
	return SourceDefault
}

// read is key's value v, from where the environment holds it.
func read[T any](r *reader, key string, v T) Setting[T] {
	return Setting[T]{Value: v, Var: key, From: r.env.source(key)}
}

// byDefault is n8n's default v for key: unset, or malformed.
func byDefault[T any](key string, v T) Setting[T] {
	return Setting[T]{Value: v, Var: key, From: SourceDefault}
}

// Listed is one setting as `/` shows it: its variable, its value or why
// it is unknown, and where it came from.
type Listed struct {
	Var, Value, Unknown string
	From                Source
}

// Listed are the settings that were read, in a fixed order.
func (s Settings) Listed() []Listed {
	return slices.Concat(listed(s.Executions), listed(s.Concurrency), listed(s.RunnersMode), listed(s.RunnerLimit),
		listed(s.Broker), listed(s.BrokerPort), listed(s.TaskRequestTimeout), listed(s.TaskAcceptTimeout),
		listed(s.OffloadManual), listed(s.KeepCompleted), listed(s.ShutdownTimeout), listed(s.RunnerShutdownTimeout),
		listed(s.N8nPort))
}

// listed is s as one row; none when nothing read it.
func listed[T any](s Setting[T]) []Listed {
	switch {
	case s.Var == "":
		return nil
	case !s.Known():
		return []Listed{{Var: s.Var, Unknown: s.Unknown}}
	}
	return []Listed{{Var: s.Var, Value: fmt.Sprint(s.Value), From: s.From}}
}
