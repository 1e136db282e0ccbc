package topology

import (
	"strings"
	"testing"
)

func parsed(env ...string) *reader { return &reader{env: ReadEnv(env)} }

// plain is s without where it came from, to compare with Of.
func plain[T any](s Setting[T]) Setting[T] { return Setting[T]{Value: s.Value, Unknown: s.Unknown} }

func TestWorkerConcurrency(t *testing.T) {
	cases := []struct {
		name     string
		env      []string
		args     []string
		want     int
		problems int
	}{
		{"default", nil, []string{"n8n", "worker"}, 10, 0},
		{"equals form", nil, []string{"n8n", "worker", "--concurrency=15"}, 15, 0},
		{"space form", nil, []string{"n8n", "worker", "--concurrency", "7"}, 7, 0},
		{"env wins", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT=3"}, []string{"n8n", "worker", "--concurrency=15"}, 3, 0},
		{"env -1 defers to flag", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT=-1"}, []string{"n8n", "worker", "--concurrency=15"}, 15, 0},
		{"env -1 and no flag", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT=-1"}, []string{"n8n", "worker"}, 10, 0},
		{"env empty", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT="}, []string{"n8n", "worker", "--concurrency=4"}, 4, 0},
		{"env garbage", []string{"N8N_CONCURRENCY_PRODUCTION_LIMIT=lots"}, []string{"n8n", "worker", "--concurrency=4"}, 4, 1},
		{"flag garbage", nil, []string{"n8n", "worker", "--concurrency=x"}, 10, 1},
		{"flag zero", nil, []string{"n8n", "worker", "--concurrency", "0"}, 10, 1},
		{"dangling flag", nil, []string{"n8n", "worker", "--concurrency"}, 10, 0},
	}
	for _, c := range cases {
		s := parsed(c.env...)
		if got := s.workerConcurrency(c.args); plain(got) != Of(c.want) || len(s.problems) != c.problems {
			t.Errorf("%s: got %+v problems %v, want %d with %d problems", c.name, got, s.problems, c.want, c.problems)
		}
	}
}

func TestRunnerLimitAndBrokerURI(t *testing.T) {
	s := parsed("N8N_RUNNERS_MAX_CONCURRENCY=20", "N8N_RUNNERS_TASK_BROKER_URI=http://n8n-Worker:5679")
	if got := s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit); plain(got) != Of(20) {
		t.Errorf("limit %+v, want 20", got)
	}
	if got := s.brokerURI(); plain(got) != Of(ep("n8n-worker", 5679)) {
		t.Errorf("broker %+v", got)
	}
	s = parsed()
	if plain(s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit)) != Of(10) || plain(s.brokerURI()) != Of(ep("127.0.0.1", 5679)) {
		t.Errorf("defaults: %+v", s.brokerURI())
	}
	s = parsed("N8N_RUNNERS_TASK_BROKER_URI=https://user:hunter2@broker.example", "N8N_RUNNERS_MAX_CONCURRENCY=-4")
	if got := s.brokerURI(); plain(got) != Of(ep("broker.example", 443)) {
		t.Errorf("https default port: %+v", got)
	}
	if plain(s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit)) != Of(10) || len(s.problems) != 1 {
		t.Errorf("negative limit: problems %v", s.problems)
	}
	s = parsed("N8N_RUNNERS_TASK_BROKER_URI=::not a url")
	if plain(s.brokerURI()) != Of(ep("127.0.0.1", 5679)) || !strings.Contains(s.problems[0], "N8N_RUNNERS_TASK_BROKER_URI") {
		t.Errorf("malformed URI: %v", s.problems)
	}
}

// ReadEnv must copy only whitelisted values, and problems must name the
// variable without quoting its value.
func TestReadEnvWhitelist(t *testing.T) {
	secret := "s3cr3t-token-value"
	env := ReadEnv([]string{"N8N_RUNNERS_AUTH_TOKEN=" + secret, "N8N_RUNNERS_MAX_CONCURRENCY=" + secret, "NOVALUE"})
	if _, ok := env.values["N8N_RUNNERS_AUTH_TOKEN"]; ok || !env.Has("N8N_RUNNERS_AUTH_TOKEN") || !env.Has("NOVALUE") {
		t.Fatalf("env %+v", env)
	}
	s := &reader{env: env}
	s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", 10)
	for _, p := range s.problems {
		if strings.Contains(p, secret) {
			t.Fatalf("problem quotes the value: %q", p)
		}
	}
}

func TestProbeRoutes(t *testing.T) {
	s := parsed("PROBE_LISTEN=127.0.0.1:5711, :5712", "PROBE_UPSTREAM=http://127.0.0.1:5689,http://n8n-worker-2:5679")
	got := s.probeRoutes().Value
	want := []Route{
		{Listen: ep("127.0.0.1", 5711), Upstream: ep("127.0.0.1", 5689), Name: "probe-1"},
		{Listen: ep("0.0.0.0", 5712), Upstream: ep("n8n-worker-2", 5679), Name: "probe-2"},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || len(s.problems) != 0 {
		t.Fatalf("got %+v problems %v", got, s.problems)
	}
	// PROBE_NAME labels them as the probe does; a count the probe refuses
	// leaves them unnamed, with the problem.
	s = parsed("PROBE_LISTEN=:5711,:5712", "PROBE_UPSTREAM=http://w1:5679,http://w2:5679", "PROBE_NAME=w1, w2")
	if got := s.probeRoutes().Value; len(got) != 2 || got[0].Name != "w1" || got[1].Name != "w2" {
		t.Errorf("PROBE_NAME=w1, w2: %+v", got)
	}
	s = parsed("PROBE_LISTEN=:5711,:5712", "PROBE_UPSTREAM=http://w1:5679,http://w2:5679", "PROBE_NAME=w1")
	if got := s.probeRoutes().Value; len(got) != 2 || got[0].Name != "" || len(s.problems) != 1 || !strings.HasPrefix(s.problems[0], "PROBE_NAME") {
		t.Errorf("PROBE_NAME=w1 for two routes: %+v %v", got, s.problems)
	}
	// The probe refuses to start on lists it cannot pair, so they give no
	// route; the problem names the variable.
	for _, env := range [][]string{
		{"PROBE_LISTEN=127.0.0.1:5711,bad", "PROBE_UPSTREAM=http://127.0.0.1:5689"},
		{"PROBE_LISTEN=127.0.0.1:5711,,127.0.0.1:5712", "PROBE_UPSTREAM=http://127.0.0.1:5689,http://127.0.0.1:5699"},
	} {
		s = parsed(env...)
		if got := s.probeRoutes(); len(got.Value) != 0 || !got.Known() || len(s.problems) != 1 || !strings.HasPrefix(s.problems[0], "PROBE_") {
			t.Errorf("%v: %+v %v", env, got, s.problems)
		}
	}
}

// A whitelisted value the platform cannot read (a Kubernetes Secret) is
// unknown with its reason, never a default, and is listed as a problem.
func TestUnknownSettings(t *testing.T) {
	var env Env
	env.SetUnknown("N8N_CONCURRENCY_PRODUCTION_LIMIT", "from Secret n8n/worker-env")
	env.SetUnknown("N8N_RUNNERS_MAX_CONCURRENCY", "from Secret n8n/runner-env")
	env.SetUnknown("N8N_RUNNERS_TASK_BROKER_URI", "from Secret n8n/runner-env")
	env.SetUnknown("PROBE_UPSTREAM", "from Secret n8n/probe-env")
	env.Set("PROBE_LISTEN", ":5711")
	env.SetUnknown("N8N_RUNNERS_AUTH_TOKEN", "from Secret n8n/runner-env")
	r := &reader{env: env}
	w := r.settings(RoleWorker, []string{"n8n", "worker", "--concurrency=15"})
	l := r.settings(RoleLauncher, nil)
	p := r.settings(RoleProbe, nil)
	if w.Concurrency.Known() || w.Concurrency.Unknown != "N8N_CONCURRENCY_PRODUCTION_LIMIT: from Secret n8n/worker-env" || w.Concurrency.Value != 0 {
		t.Errorf("worker concurrency %+v", w.Concurrency)
	}
	if l.RunnerLimit.Known() || l.Broker.Known() || p.Routes.Known() || !w.BrokerPort.Known() || w.BrokerPort.Value != DefaultBrokerPort {
		t.Errorf("launcher %+v probe %+v worker %+v", l, p, w)
	}
	// The worker's internal runner (N8N_RUNNERS_MODE unset) takes the
	// unreadable limit too.
	if len(r.problems) != 5 || r.problems[0] != "N8N_CONCURRENCY_PRODUCTION_LIMIT cannot be read (from Secret n8n/worker-env)" ||
		r.problems[1] != "N8N_RUNNERS_MAX_CONCURRENCY cannot be read (from Secret n8n/runner-env)" {
		t.Errorf("problems %q", r.problems)
	}
	if !env.Has("N8N_RUNNERS_AUTH_TOKEN") || !env.Has("PROBE_UPSTREAM") || len(env.unknown) != 4 {
		t.Errorf("env %+v", env)
	}
	if !Whitelisted("N8N_PORT") || Whitelisted("N8N_RUNNERS_AUTH_TOKEN") {
		t.Error("Whitelisted")
	}
}

// The broker hosts read N8N_RUNNERS_TASK_REQUEST_TIMEOUT (n8n's default
// 60 s) and N8N_RUNNERS_TASK_ACCEPT_TIMEOUT (2 s); a runner has no broker
// and reads neither; a malformed value is the default with a problem that
// does not repeat the value.
func TestBrokerTimeouts(t *testing.T) {
	runner := []string{"node", "/opt/n8n/node_modules/@n8n/task-runner/dist/start.js"}
	for _, tc := range []struct {
		argv            []string
		env             []string
		request, accept Setting[int]
		problem         string
	}{
		{[]string{"n8n", "worker"}, nil, Of(60), Of(2), ""},
		{[]string{"n8n"}, []string{"N8N_RUNNERS_TASK_REQUEST_TIMEOUT=8"}, Of(8), Of(2), ""},
		{[]string{"n8n", "webhook"}, []string{"N8N_RUNNERS_TASK_REQUEST_TIMEOUT=20", "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT=5"}, Of(20), Of(5), ""},
		{[]string{"n8n", "worker"}, []string{"N8N_RUNNERS_TASK_REQUEST_TIMEOUT=soon"}, Of(60), Of(2), "N8N_RUNNERS_TASK_REQUEST_TIMEOUT is not a positive integer; using 60"},
		{[]string{"n8n", "worker"}, []string{"N8N_RUNNERS_TASK_ACCEPT_TIMEOUT=0"}, Of(60), Of(2), "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT is not a positive integer; using 2"},
		{runner, []string{"N8N_RUNNERS_TASK_REQUEST_TIMEOUT=8", "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT=5", "N8N_RUNNERS_TASK_BROKER_URI=http://w:5679"}, Setting[int]{}, Setting[int]{}, ""},
	} {
		p, ok := NewProcess(Spec{Argv: tc.argv, Env: ReadEnv(tc.env)})
		if !ok || plain(p.Settings.TaskRequestTimeout) != tc.request || plain(p.Settings.TaskAcceptTimeout) != tc.accept {
			t.Errorf("%v %v: request %+v, accept %+v; want %+v, %+v", tc.argv, tc.env,
				p.Settings.TaskRequestTimeout, p.Settings.TaskAcceptTimeout, tc.request, tc.accept)
		}
		if got := strings.Join(p.Problems, "; "); tc.problem != "" && !strings.Contains(got, tc.problem) || tc.problem == "" && strings.Contains(got, "TIMEOUT") {
			t.Errorf("%v %v: problems %q, want %q", tc.argv, tc.env, got, tc.problem)
		}
	}
}

// A worker takes its jobs from a pool's queue only with pools enabled and
// a name n8n accepts (trimmed, quotes stripped); otherwise the default
// queue. No problem ever holds the name.
func TestWorkerPool(t *testing.T) {
	for _, tc := range []struct {
		env     []string
		pool    string
		problem string
	}{
		{[]string{"N8N_WORKER_POOLS_ENABLED=true", "N8N_WORKER_POOL_NAME=heavy"}, "heavy", ""},
		{[]string{"N8N_WORKER_POOLS_ENABLED=1", "N8N_WORKER_POOL_NAME= 'heavy-2' "}, "heavy-2", ""},
		{[]string{"N8N_WORKER_POOLS_ENABLED=true", "N8N_WORKER_POOL_NAME="}, "", ""},
		{[]string{"N8N_WORKER_POOLS_ENABLED=true", "N8N_WORKER_POOL_NAME=Heavy"}, "", "not a pool name n8n accepts"},
		{[]string{"N8N_WORKER_POOLS_ENABLED=true", "N8N_WORKER_POOL_NAME='heavy\""}, "", "not a pool name n8n accepts"},
		{[]string{"N8N_WORKER_POOL_NAME=heavy"}, "", ""},
		{[]string{"N8N_WORKER_POOLS_ENABLED=false", "N8N_WORKER_POOL_NAME=heavy"}, "", ""},
		{[]string{"N8N_WORKER_POOLS_ENABLED=true"}, "", ""},
		{nil, "", ""},
	} {
		p, ok := NewProcess(Spec{Argv: []string{"n8n", "worker"}, Env: ReadEnv(tc.env)})
		got := strings.Join(p.Problems, "; ")
		if !ok || !p.Settings.Pool.Known() || p.Settings.Pool.Value != tc.pool || p.Settings.InPool() != (tc.pool != "") {
			t.Errorf("%v: pool %+v, want %q", tc.env, p.Settings.Pool, tc.pool)
		}
		if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) || strings.Contains(strings.ToLower(got), "heavy") {
			t.Errorf("%v: problems %q, want %q and never the name", tc.env, got, tc.problem)
		}
	}
}

// A pool name set where pools may be enabled by a Secret is unknown, and
// says which variable; with no pool name the worker serves the default
// queue whatever a Secret holds.
func TestWorkerPoolUnknown(t *testing.T) {
	var env Env
	env.Set("N8N_WORKER_POOL_NAME", "heavy")
	env.MayHide("N8N_", "from an envFrom Secret")
	p, _ := NewProcess(Spec{Argv: []string{"n8n", "worker"}, Env: env})
	if p.Settings.Pool.Known() || !strings.Contains(p.Settings.Pool.Unknown, "N8N_WORKER_POOLS_ENABLED") || p.Settings.InPool() {
		t.Errorf("pool %+v, want unknown through N8N_WORKER_POOLS_ENABLED", p.Settings.Pool)
	}
	var hidden Env
	hidden.MayHide("N8N_", "from an envFrom Secret")
	if p, _ := NewProcess(Spec{Argv: []string{"n8n", "worker"}, Env: hidden}); !p.Settings.Pool.Known() || p.Settings.InPool() {
		t.Errorf("no pool name: pool %+v, want the default queue", p.Settings.Pool)
	}
}

// Pool workers and their runners are grouped apart from the production
// workers, and PoolIDs names exactly them.
func TestPairPooled(t *testing.T) {
	worker := func(id string, pool string) Process {
		p := Process{ID: id, Name: id, Role: RoleWorker}
		p.Settings.Pool = Of(pool)
		p.Settings.Concurrency = Of(5)
		return p
	}
	top := Pair([]Process{worker("b", "heavy"), worker("a", ""), worker("c", "heavy")})
	if len(top.Workers) != 1 || top.Workers[0].Worker.ID != "a" || len(top.Pooled) != 2 || top.Pooled[0].Worker.ID != "b" {
		t.Fatalf("workers %v, pooled %v", top.Workers, top.Pooled)
	}
	if ids := top.PoolIDs(); len(ids) != 2 || !ids["b"] || !ids["c"] || ids["a"] {
		t.Errorf("pool IDs %v", ids)
	}
	if n := len(top.Hosts()); n != 3 {
		t.Errorf("hosts: %d groups", n)
	}
}

// A Secret behind envFrom may set any whitelisted key nothing readable
// set: those read as unknown, the keys set elsewhere keep their values,
// and the hidden keys never make a worker a probe.
func TestMayHide(t *testing.T) {
	env := ReadEnv([]string{"N8N_RUNNERS_BROKER_PORT=5699", "DB_PASSWORD=x"})
	env.MayHide("", "may come from Secret n8n/enc")
	p, ok := NewProcess(Spec{Argv: []string{"n8n", "worker", "--concurrency=4"}, Env: env})
	if !ok || p.Role != RoleWorker {
		t.Fatalf("role %q", p.Role)
	}
	if plain(p.Settings.BrokerPort) != Of(5699) {
		t.Errorf("broker port set elsewhere: %+v", p.Settings.BrokerPort)
	}
	want := "N8N_CONCURRENCY_PRODUCTION_LIMIT: may come from Secret n8n/enc"
	if p.Settings.Concurrency.Unknown != want || p.Settings.RunnersMode.Known() || p.Settings.TaskRequestTimeout.Known() || p.Settings.TaskAcceptTimeout.Known() || p.Settings.ShutdownTimeout.Known() || len(p.Problems) != 5 {
		t.Errorf("concurrency %+v, problems %v", p.Settings.Concurrency, p.Problems)
	}
	// A prefix limits the keys the Secret can set.
	env = ReadEnv(nil)
	env.MayHide("PROBE_", "may come from Secret n8n/p")
	r := &reader{env: env}
	if plain(r.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", 10)) != Of(10) || r.probeRoutes().Known() {
		t.Errorf("prefix not honoured")
	}
}

func TestProbeMetricsPort(t *testing.T) {
	cases := []struct {
		env      []string
		want     Setting[int]
		problems int
	}{
		{nil, Of(9810), 0},
		{[]string{"EXPORTER_LISTEN=:9900"}, Of(9900), 0},
		{[]string{"EXPORTER_LISTEN=127.0.0.1:9911"}, Of(9911), 0},
		{[]string{"EXPORTER_LISTEN=nonsense"}, Of(9810), 1},
		{[]string{"EXPORTER_LISTEN=:0"}, Of(9810), 1},
	}
	for _, c := range cases {
		r := parsed(c.env...)
		if got := r.metricsPort(); got != c.want || len(r.problems) != c.problems {
			t.Errorf("%v: got %+v problems %v", c.env, got, r.problems)
		}
	}
	env := ReadEnv([]string{"PROBE_LISTEN=:5680", "PROBE_UPSTREAM=http://localhost:5679"})
	env.SetUnknown("EXPORTER_LISTEN", "from Secret n8n/p")
	p, _ := NewProcess(Spec{Env: env})
	if p.Role != RoleProbe || p.Settings.MetricsPort.Unknown != "EXPORTER_LISTEN: from Secret n8n/p" {
		t.Errorf("unknown metrics port: %+v", p.Settings)
	}
}

// The shutdown window: N8N_GRACEFUL_SHUTDOWN_TIMEOUT on a main or worker, a
// worker's QUEUE_WORKER_TIMEOUT over it when set (one that is not a
// positive integer gives 30, as n8n does), a runner's own
// N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT, which an internal runner takes
// from the process that launches it. A bad value is a problem, never
// echoed.
func TestShutdownTimeout(t *testing.T) {
	for _, tc := range []struct {
		argv       []string
		env        []string
		want       int
		internal   int
		problemFor string
	}{
		{[]string{"n8n", "worker"}, nil, 30, 30, ""},
		{[]string{"n8n", "worker"}, []string{"N8N_GRACEFUL_SHUTDOWN_TIMEOUT=120", "N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT=45"}, 120, 45, ""},
		{[]string{"n8n", "worker"}, []string{"N8N_GRACEFUL_SHUTDOWN_TIMEOUT=120", "QUEUE_WORKER_TIMEOUT=90"}, 90, 30, ""},
		{[]string{"n8n", "worker"}, []string{"N8N_GRACEFUL_SHUTDOWN_TIMEOUT=120", "QUEUE_WORKER_TIMEOUT=soon"}, 30, 30, "QUEUE_WORKER_TIMEOUT"},
		{[]string{"n8n", "worker"}, []string{"N8N_GRACEFUL_SHUTDOWN_TIMEOUT=0"}, 0, 30, ""},
		{[]string{"n8n", "start"}, []string{"N8N_GRACEFUL_SHUTDOWN_TIMEOUT=-5s", "QUEUE_WORKER_TIMEOUT=90"}, 30, 30, "N8N_GRACEFUL_SHUTDOWN_TIMEOUT"},
	} {
		p, ok := NewProcess(Spec{Argv: tc.argv, Env: ReadEnv(tc.env)})
		got := strings.Join(p.Problems, "; ")
		if !ok || plain(p.Settings.ShutdownTimeout) != Of(tc.want) || plain(p.Settings.RunnerShutdownTimeout) != Of(tc.internal) {
			t.Errorf("%v %v: shutdown %+v, runner's %+v, want %d and %d", tc.argv, tc.env, p.Settings.ShutdownTimeout, p.Settings.RunnerShutdownTimeout, tc.want, tc.internal)
		}
		if (tc.problemFor == "") != (got == "") || !strings.Contains(got, tc.problemFor) || strings.Contains(got, "soon") || strings.Contains(got, "-5s") {
			t.Errorf("%v: problems %q, want one naming %q and no value", tc.env, got, tc.problemFor)
		}
		if n := newNode(p); len(n.Runners) != 1 || plain(n.Runners[0].Runner.Settings.ShutdownTimeout) != Of(tc.internal) {
			t.Errorf("%v: internal runner %+v", tc.env, n.Runners)
		}
	}
	r, _ := NewProcess(Spec{Argv: []string{"node", "/opt/runners/task-runner/dist/start.js"},
		Env: ReadEnv([]string{"N8N_RUNNERS_TASK_BROKER_URI=http://w:5679", "N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT=10", "N8N_GRACEFUL_SHUTDOWN_TIMEOUT=99"})})
	if r.Role != RoleRunner || plain(r.Settings.ShutdownTimeout) != Of(10) {
		t.Errorf("runner %q: shutdown %+v, want 10", r.Role, r.Settings.ShutdownTimeout)
	}
}
