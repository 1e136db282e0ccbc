package topology

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// n8n's defaults for the settings below (n8n 2.23.2).
const (
	DefaultConcurrency = 10
	DefaultRunnerLimit = 10
	DefaultBrokerPort  = 5679
	// DefaultTaskRequestTimeout is N8N_RUNNERS_TASK_REQUEST_TIMEOUT's
	// default, in seconds: how long a Code task's request waits for a
	// runner slot before its execution fails with "Task request timed
	// out".
	DefaultTaskRequestTimeout = 60
	// DefaultTaskAcceptTimeout is N8N_RUNNERS_TASK_ACCEPT_TIMEOUT's default
	// in seconds (n8n 2.41.1; 2.23.2 has the same 2 s, fixed): how long the
	// broker waits for a runner to accept a task it offered before it
	// cancels the task and offers it elsewhere.
	DefaultTaskAcceptTimeout = 2
	DefaultN8nPort           = 5678
	// DefaultShutdownTimeout is the default, in seconds, of both
	// N8N_GRACEFUL_SHUTDOWN_TIMEOUT (main, worker) and
	// N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT (a runner).
	DefaultShutdownTimeout = 30
	// DefaultMetricsPort is the port of EXPORTER_LISTEN's default, where
	// a probe-only exporter serves its probes' /metrics.
	DefaultMetricsPort = 9810
)

// Endpoint is a host and port a process dials or listens on.
type Endpoint = route.Endpoint

// Route is one probe listener and the broker it relays to.
type Route = route.Route

// Setting is one whitelisted setting: its value, or why it is unknown.
// Unknown is never papered over with a default.
type Setting[T any] struct {
	Value   T
	Unknown string // the variable and why it could not be read; "" = known
	// Var names what was read: an env variable, or ConcurrencyFlag; ""
	// for a value built by hand or derived.
	Var  string
	From Source // where Value came from; "" for a value built by hand
}

// Of is a known setting.
func Of[T any](v T) Setting[T] { return Setting[T]{Value: v} }

// Known reports whether the value was read.
func (s Setting[T]) Known() bool { return s.Unknown == "" }

// Settings are the values that decide capacity. Each is read only for the
// roles it applies to and is zero (and known) for the others.
type Settings struct {
	// Concurrency is a worker's effective concurrency, or a regular-mode
	// main's N8N_CONCURRENCY_PRODUCTION_LIMIT (NoLimit for none).
	Concurrency Setting[int]
	// RunnerLimit is N8N_RUNNERS_MAX_CONCURRENCY of a runner or launcher,
	// or of a main's or worker's internal runner.
	RunnerLimit   Setting[int]
	RunnersMode   Setting[RunnersMode]    // main, worker: N8N_RUNNERS_MODE
	Executions    Setting[ExecutionsMode] // main: EXECUTIONS_MODE
	OffloadManual Setting[bool]           // queue-mode main: OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS
	// KeepCompleted is N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED of a
	// process that queues executions (a queue-mode main, a webhook
	// processor): how many completed jobs Bull keeps in Redis. At 0, n8n's
	// default, Bull deletes a job as it completes.
	KeepCompleted Setting[int]
	// Pool is the worker pool whose Bull queue (jobs-<pool>) a worker
	// takes its jobs from; "" is the default queue, jobs. It is read to
	// group workers and is never published.
	Pool       Setting[string]
	BrokerPort Setting[int] // main, worker, webhook: N8N_RUNNERS_BROKER_PORT
	// TaskRequestTimeout is N8N_RUNNERS_TASK_REQUEST_TIMEOUT of a main,
	// worker or webhook processor, in seconds: its broker fails a task
	// request that no runner slot took within it.
	TaskRequestTimeout Setting[int]
	// TaskAcceptTimeout is N8N_RUNNERS_TASK_ACCEPT_TIMEOUT of a broker
	// host, in seconds.
	TaskAcceptTimeout Setting[int]
	// ShutdownTimeout is how long, in seconds, a stopping process lets
	// its running work finish: a main's or worker's
	// N8N_GRACEFUL_SHUTDOWN_TIMEOUT (a worker's QUEUE_WORKER_TIMEOUT, when
	// set, wins, as in n8n), a runner's N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT.
	ShutdownTimeout Setting[int]
	// RunnerShutdownTimeout is the N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT a
	// main or worker hands the runner it launches.
	RunnerShutdownTimeout Setting[int]
	N8nPort               Setting[int]      // main: N8N_PORT, where /metrics is served
	Broker                Setting[Endpoint] // runner, launcher: N8N_RUNNERS_TASK_BROKER_URI
	Routes                Setting[[]Route]  // probe: PROBE_LISTEN and PROBE_UPSTREAM
	MetricsPort           Setting[int]      // probe: EXPORTER_LISTEN's port, where its /metrics is served
}

// reader parses the whitelisted values and collects problems, each naming
// the variable but never its value.
type reader struct {
	env      Env
	problems []string
}

func (r *reader) settings(role Role, argv []string) Settings {
	var s Settings
	switch {
	case role == RoleWorker:
		s.Concurrency = r.workerConcurrency(argv)
		s.Pool = r.workerPool()
	case role.RunsTasks():
		s.RunnerLimit = r.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit)
		s.Broker = r.brokerURI()
		s.ShutdownTimeout = r.seconds("N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout)
	case role == RoleProbe:
		s.Routes = r.probeRoutes()
		s.MetricsPort = r.metricsPort()
	}
	if role == RoleMain {
		r.mainSettings(&s)
	}
	if role == RoleWebhook {
		s.KeepCompleted = r.keepCompleted()
	}
	if role.HostsExecutions() {
		r.runnerSettings(&s)
		s.ShutdownTimeout = r.shutdownTimeout(role)
	}
	if role.HostsBroker() {
		s.BrokerPort = r.positiveInt("N8N_RUNNERS_BROKER_PORT", DefaultBrokerPort)
		s.TaskRequestTimeout = r.positiveInt("N8N_RUNNERS_TASK_REQUEST_TIMEOUT", DefaultTaskRequestTimeout)
		s.TaskAcceptTimeout = r.positiveInt("N8N_RUNNERS_TASK_ACCEPT_TIMEOUT", DefaultTaskAcceptTimeout)
	}
	if role == RoleMain {
		s.N8nPort = r.positiveInt("N8N_PORT", DefaultN8nPort)
	}
	return s
}

func (r *reader) problem(p string) { r.problems = append(r.problems, p) }

// poolName is the N8N_WORKER_POOL_NAME n8n accepts; any other value
// falls back to "", the default queue.
var poolName = regexp.MustCompile(`^([a-z0-9][a-z0-9-]{0,62})?$`)

// workerPool is the pool whose queue a worker takes its jobs from, as n8n
// 2.41.1 resolves it (2.23.2 has no pools): N8N_WORKER_POOL_NAME (trimmed, quotes
// stripped) when N8N_WORKER_POOLS_ENABLED is true, else "". Worker pools
// are an Enterprise feature: an unlicensed worker with a pool exits, so a
// running one serves its pool. Older n8n ignores both variables.
func (r *reader) workerPool() Setting[string] {
	const key = "N8N_WORKER_POOL_NAME"
	if !r.env.Has(key) {
		return byDefault(key, "")
	}
	on := r.boolSetting("N8N_WORKER_POOLS_ENABLED")
	switch {
	case !on.Known():
		return Setting[string]{Unknown: on.Unknown, Var: key}
	case !on.Value:
		return byDefault(key, "")
	}
	v, _, why := r.env.lookup(key)
	if why != "" {
		return unknownAs[string](r, key, why)
	}
	name := unquote(strings.TrimSpace(v))
	if !poolName.MatchString(name) {
		r.problem("N8N_WORKER_POOL_NAME is not a pool name n8n accepts (lowercase letters, digits and hyphens); n8n takes the default queue")
		return byDefault(key, "")
	}
	return read(r, key, name)
}

// unquote strips one pair of matching quotes around v, as n8n does.
func unquote(v string) string {
	if n := len(v); n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n-1] == v[0] {
		return v[1 : n-1]
	}
	return v
}

// InPool reports whether a worker takes its jobs from a worker pool's
// queue rather than the default one.
func (s Settings) InPool() bool { return s.Pool.Known() && s.Pool.Value != "" }

// unknownAs records that key could not be read.
func unknownAs[T any](r *reader, key, why string) Setting[T] {
	r.problem(key + " cannot be read (" + why + ")")
	return Setting[T]{Unknown: key + ": " + why, Var: key}
}

func (r *reader) positiveInt(key string, def int) Setting[int] {
	return r.intAtLeast(key, def, 1, "a positive integer")
}

// intAtLeast is key as an integer of at least low, def when unset; a
// value that is not one is a problem named by what.
func (r *reader) intAtLeast(key string, def, low int, what string) Setting[int] {
	v, set, why := r.env.lookup(key)
	switch {
	case why != "":
		return unknownAs[int](r, key, why)
	case !set || v == "":
		return byDefault(key, def)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < low {
		r.problem(key + " is not " + what + "; using " + strconv.Itoa(def))
		return byDefault(key, def)
	}
	return read(r, key, n)
}

// seconds is a whole number of seconds, 0 included.
func (r *reader) seconds(key string, def int) Setting[int] {
	return r.intAtLeast(key, def, 0, "a whole number of seconds")
}

// shutdownTimeout follows n8n: a worker's QUEUE_WORKER_TIMEOUT (deprecated),
// when set, wins, and one that is not a positive integer gives 30.
func (r *reader) shutdownTimeout(role Role) Setting[int] {
	if v, set, why := r.env.lookup("QUEUE_WORKER_TIMEOUT"); role == RoleWorker && (why != "" || set && v != "") {
		return r.positiveInt("QUEUE_WORKER_TIMEOUT", DefaultShutdownTimeout)
	}
	return r.seconds("N8N_GRACEFUL_SHUTDOWN_TIMEOUT", DefaultShutdownTimeout)
}

// workerConcurrency follows n8n: N8N_CONCURRENCY_PRODUCTION_LIMIT wins
// unless it is -1, then --concurrency, then 10.
func (r *reader) workerConcurrency(argv []string) Setting[int] {
	if s := r.productionLimit(); !s.Known() || s.Value != NoLimit {
		return s
	}
	return r.concurrencyFlag(argv)
}

// productionLimit reads N8N_CONCURRENCY_PRODUCTION_LIMIT: a positive
// limit, else NoLimit (-1, unset, or malformed with a problem).
func (r *reader) productionLimit() Setting[int] {
	const key = "N8N_CONCURRENCY_PRODUCTION_LIMIT"
	v, _, why := r.env.lookup(key)
	if why != "" {
		return unknownAs[int](r, key, why)
	}
	switch v = strings.TrimSpace(v); v {
	case "":
		return byDefault(key, NoLimit)
	case "-1":
		return read(r, key, NoLimit)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		r.problem(key + " is neither -1 nor a positive integer; ignored")
		return byDefault(key, NoLimit)
	}
	return read(r, key, n)
}

// concurrencyFlag reads `--concurrency=N` or `--concurrency N`.
func (r *reader) concurrencyFlag(argv []string) Setting[int] {
	for i, a := range argv {
		var v string
		switch {
		case strings.HasPrefix(a, ConcurrencyFlag+"="):
			v = strings.TrimPrefix(a, ConcurrencyFlag+"=")
		case a == ConcurrencyFlag && i+1 < len(argv):
			v = argv[i+1]
		default:
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			r.problem(ConcurrencyFlag + " is not a positive integer; using " + strconv.Itoa(DefaultConcurrency))
			return byDefault(ConcurrencyFlag, DefaultConcurrency)
		}
		return Setting[int]{Value: n, Var: ConcurrencyFlag, From: SourceFlag}
	}
	return byDefault(ConcurrencyFlag, DefaultConcurrency)
}

// brokerURI reads N8N_RUNNERS_TASK_BROKER_URI (default
// http://127.0.0.1:5679) down to host and port; any userinfo is dropped.
func (r *reader) brokerURI() Setting[Endpoint] {
	const key = "N8N_RUNNERS_TASK_BROKER_URI"
	def := Endpoint{Host: "127.0.0.1", Port: DefaultBrokerPort}
	v, set, why := r.env.lookup(key)
	switch {
	case why != "":
		return unknownAs[Endpoint](r, key, why)
	case !set || v == "":
		return byDefault(key, def)
	}
	u, err := route.ParseURL(strings.TrimSpace(v))
	if err != nil {
		r.problem(key + " is not a URL with a host")
		return byDefault(key, def)
	}
	return read(r, key, u.Endpoint)
}

// probeRoutes reads a probe's routes with the probe's own parser. A list
// the probe would refuse to start with gives no routes.
func (r *reader) probeRoutes() Setting[[]Route] {
	listen, _, whyL := r.env.lookup(route.ListenVar)
	upstream, _, whyU := r.env.lookup(route.UpstreamVar)
	switch {
	case whyL != "":
		return unknownAs[[]Route](r, route.ListenVar, whyL)
	case whyU != "":
		return unknownAs[[]Route](r, route.UpstreamVar, whyU)
	}
	entries, err := route.Parse(listen, upstream)
	if err != nil {
		r.problem(err.Error())
		return Setting[[]Route]{}
	}
	routes := route.Routes(entries)
	if names, why := r.probeNames(len(routes)); why == "" {
		for i := range routes {
			routes[i].Name = names[i]
		}
	}
	return Of(routes)
}

// probeNames reads PROBE_NAME for n routes, as the probe labels them; a
// value that cannot be read, or that the probe refuses, leaves them unnamed
// (a reason), and the runners' figures then count for no worker.
func (r *reader) probeNames(n int) ([]string, string) {
	v, _, why := r.env.lookup(route.NameVar)
	if why != "" {
		return nil, why
	}
	names, err := route.Names(v, n)
	if err != nil {
		r.problem(err.Error())
		return nil, err.Error()
	}
	return names, ""
}

// metricsPort reads the port of a probe's EXPORTER_LISTEN (default :9810).
func (r *reader) metricsPort() Setting[int] {
	const key = "EXPORTER_LISTEN"
	v, set, why := r.env.lookup(key)
	switch {
	case why != "":
		return unknownAs[int](r, key, why)
	case !set || strings.TrimSpace(v) == "":
		return Of(DefaultMetricsPort)
	}
	l, err := route.ParseListen(strings.TrimSpace(v))
	if err != nil || l.Port == 0 {
		r.problem(key + " is not host:port with a port; using " + strconv.Itoa(DefaultMetricsPort))
		return Of(DefaultMetricsPort)
	}
	return Of(l.Port)
}
