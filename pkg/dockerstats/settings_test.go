package dockerstats

import (
	"strings"
	"testing"
)

func parsed(env ...string) *settings {
	v, _ := readEnv(env)
	return &settings{values: v}
}

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
		if got := s.workerConcurrency(c.args); got != c.want || len(s.problems) != c.problems {
			t.Errorf("%s: got %d problems %v, want %d with %d problems", c.name, got, s.problems, c.want, c.problems)
		}
	}
}

func TestRunnerLimitAndBrokerURI(t *testing.T) {
	s := parsed("N8N_RUNNERS_MAX_CONCURRENCY=20", "N8N_RUNNERS_TASK_BROKER_URI=http://n8n-Worker:5679")
	if got := s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit); got != 20 {
		t.Errorf("limit %d, want 20", got)
	}
	if got := s.brokerURI(); got != (Endpoint{"n8n-worker", 5679}) {
		t.Errorf("broker %+v", got)
	}
	s = parsed()
	if s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit) != 10 || s.brokerURI() != (Endpoint{"127.0.0.1", 5679}) {
		t.Errorf("defaults: %+v", s.brokerURI())
	}
	s = parsed("N8N_RUNNERS_TASK_BROKER_URI=https://user:hunter2@broker.example", "N8N_RUNNERS_MAX_CONCURRENCY=-4")
	if got := s.brokerURI(); got != (Endpoint{"broker.example", 443}) {
		t.Errorf("https default port: %+v", got)
	}
	if s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit) != 10 || len(s.problems) != 1 {
		t.Errorf("negative limit: problems %v", s.problems)
	}
	s = parsed("N8N_RUNNERS_TASK_BROKER_URI=::not a url")
	if s.brokerURI() != (Endpoint{"127.0.0.1", 5679}) || !strings.Contains(s.problems[0], "N8N_RUNNERS_TASK_BROKER_URI") {
		t.Errorf("malformed URI: %v", s.problems)
	}
}

// readEnv must copy only whitelisted values, and problems must name the
// variable without quoting its value.
func TestReadEnvWhitelist(t *testing.T) {
	secret := "s3cr3t-token-value"
	values, keys := readEnv([]string{"N8N_RUNNERS_AUTH_TOKEN=" + secret, "N8N_RUNNERS_MAX_CONCURRENCY=" + secret, "NOVALUE"})
	if _, ok := values["N8N_RUNNERS_AUTH_TOKEN"]; ok || !keys["N8N_RUNNERS_AUTH_TOKEN"] || !keys["NOVALUE"] {
		t.Fatalf("values %v keys %v", values, keys)
	}
	s := &settings{values: values}
	s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", 10)
	for _, p := range s.problems {
		if strings.Contains(p, secret) {
			t.Fatalf("problem quotes the value: %q", p)
		}
	}
}

func TestProbeRoutes(t *testing.T) {
	s := parsed("PROBE_LISTEN=127.0.0.1:5711, :5712", "PROBE_UPSTREAM=http://127.0.0.1:5689,http://n8n-worker-2:5679")
	got := s.probeRoutes()
	want := []Route{
		{Endpoint{"127.0.0.1", 5711}, Endpoint{"127.0.0.1", 5689}},
		{Endpoint{"0.0.0.0", 5712}, Endpoint{"n8n-worker-2", 5679}},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || len(s.problems) != 0 {
		t.Fatalf("got %+v problems %v", got, s.problems)
	}
	s = parsed("PROBE_LISTEN=127.0.0.1:5711,bad", "PROBE_UPSTREAM=http://127.0.0.1:5689")
	if got := s.probeRoutes(); len(got) != 1 || len(s.problems) != 1 {
		t.Fatalf("mismatched lists: %+v %v", got, s.problems)
	}
}
