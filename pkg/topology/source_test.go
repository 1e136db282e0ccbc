package topology

import (
	"slices"
	"strings"
	"testing"
)

// Every setting says where its value came from: the env, a ConfigMap,
// the command line, a declaration, or n8n's default when unset or
// malformed.
func TestSources(t *testing.T) {
	env := ReadEnv([]string{"N8N_RUNNERS_MODE=external", "N8N_RUNNERS_TASK_REQUEST_TIMEOUT=soon"})
	env.SetFrom("N8N_RUNNERS_BROKER_PORT", "5699", SourceConfigMap)
	p, _ := NewProcess(Spec{Argv: []string{"n8n", "worker", "--concurrency=7"}, Env: env})
	s := p.Settings
	for _, c := range []struct {
		got  Setting[int]
		v    string
		want Source
	}{
		{s.Concurrency, ConcurrencyFlag, SourceFlag},
		{s.BrokerPort, "N8N_RUNNERS_BROKER_PORT", SourceConfigMap},
		{s.TaskRequestTimeout, "N8N_RUNNERS_TASK_REQUEST_TIMEOUT", SourceDefault},
		{s.TaskAcceptTimeout, "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT", SourceDefault},
	} {
		if c.got.Var != c.v || c.got.From != c.want {
			t.Errorf("%s: %+v, want from %s", c.v, c.got, c.want)
		}
	}
	if s.RunnersMode.From != SourceEnv || s.Concurrency.Value != 7 || s.BrokerPort.Value != 5699 || s.TaskRequestTimeout.Value != DefaultTaskRequestTimeout {
		t.Errorf("values %+v", s)
	}
	want := []Listed{
		{Var: ConcurrencyFlag, Value: "7", From: SourceFlag},
		{Var: "N8N_RUNNERS_MODE", Value: "external", From: SourceEnv},
		{Var: "N8N_RUNNERS_BROKER_PORT", Value: "5699", From: SourceConfigMap},
	}
	if got := s.Listed(); len(got) < 3 || !slices.Equal(got[:3], want) {
		t.Errorf("listed %+v", got)
	}
}

// A declaration fills what the environment leaves unset or unreadable,
// never what it sets; it is validated as the env is; a declared key the
// exporter does not read, or a probe's own, is a problem named by its key.
func TestDeclare(t *testing.T) {
	env := ReadEnv([]string{"N8N_RUNNERS_MODE=external", "N8N_RUNNERS_TASK_REQUEST_TIMEOUT=30"})
	env.SetUnknown("N8N_RUNNERS_BROKER_PORT", "from Secret n8n/env")
	env.MayHide("", "may come from Secret n8n/all")
	env.Declare(map[string]string{
		DeclarePrefix + "N8N_CONCURRENCY_PRODUCTION_LIMIT": "6",
		DeclarePrefix + "N8N_RUNNERS_BROKER_PORT":          "5690",
		DeclarePrefix + "N8N_RUNNERS_TASK_REQUEST_TIMEOUT": "90",
		DeclarePrefix + "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT":  "zero",
		DeclarePrefix + "N8N_RUNNERS_AUTH_TOKEN":           "hunter2",
		DeclarePrefix + "PROBE_UPSTREAM":                   "http://x:5679",
		"app.kubernetes.io/N8N_RUNNERS_MODE":               "internal",
	})
	p, ok := NewProcess(Spec{Argv: []string{"n8n", "worker", "--concurrency=7"}, Env: env})
	if !ok || p.Role != RoleWorker {
		t.Fatalf("role %q: a declared PROBE_UPSTREAM must not make a probe", p.Role)
	}
	s := p.Settings
	for _, c := range []struct {
		got   Setting[int]
		value int
		from  Source
	}{
		{s.Concurrency, 6, SourceDeclared},      // hidden by the Secret: declared
		{s.BrokerPort, 5690, SourceDeclared},    // unreadable: declared
		{s.TaskRequestTimeout, 30, SourceEnv},   // the env says: the declaration loses
		{s.TaskAcceptTimeout, 2, SourceDefault}, // declared malformed: n8n's default
		{s.ShutdownTimeout, 0, ""},              // hidden, not declared: unknown
	} {
		if c.from == "" {
			if c.got.Known() {
				t.Errorf("%s known: %+v", c.got.Var, c.got)
			}
			continue
		}
		if !c.got.Known() || c.got.Value != c.value || c.got.From != c.from {
			t.Errorf("%s: %+v, want %d from %s", c.got.Var, c.got, c.value, c.from)
		}
	}
	if s.RunnersMode.Value != RunnersExternal || s.RunnersMode.From != SourceEnv {
		t.Errorf("a foreign prefix declared something: %+v", s.RunnersMode)
	}
	probs := strings.Join(p.Problems, "\n")
	for _, k := range []string{"N8N_RUNNERS_AUTH_TOKEN", "PROBE_UPSTREAM", "N8N_RUNNERS_TASK_ACCEPT_TIMEOUT"} {
		if !strings.Contains(probs, k) {
			t.Errorf("no problem names %s: %v", k, p.Problems)
		}
	}
	if strings.Contains(probs, "hunter2") || strings.Contains(probs, "zero") {
		t.Errorf("a problem quotes a value: %v", p.Problems)
	}
	if Declares(DeclarePrefix+"N8N_RUNNERS_AUTH_TOKEN") || Declares("N8N_RUNNERS_MAX_CONCURRENCY") || !Declares(DeclarePrefix+"N8N_RUNNERS_MAX_CONCURRENCY") {
		t.Error("Declares")
	}
}
