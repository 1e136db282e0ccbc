package compose

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// The images cannot be pulled on the build machine, so the stack is checked
// with `docker-compose config`, which resolves and validates the file
// without pulling or starting anything.

type composeFile struct {
	Services map[string]struct {
		Image       string
		Command     []string
		Environment map[string]string
		Volumes     []string
		Build       struct{ Context, Dockerfile string }
		MemLimit    any `yaml:"mem_limit"`
	}
}

func composeConfig(t *testing.T, envFile string) (string, error) {
	t.Helper()
	dc := testtool.Require(t, "docker-compose", "docker-compose")
	return command(".", minimalEnv(), dc, "-f", "docker-compose.yml", "--env-file", envFile, "config")
}

func resolved(t *testing.T) composeFile {
	t.Helper()
	var cf composeFile
	resolveInto(t, ".env.example", &cf)
	return cf
}

var topLevelKey = regexp.MustCompile(`(?m)^(networks|services|version|volumes):`)

// resolveInto decodes `docker-compose config` with envFile into v.
func resolveInto(t *testing.T, envFile string, v any) {
	t.Helper()
	out, err := composeConfig(t, envFile)
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, out)
	}
	// docker-compose may print warnings before the YAML.
	if loc := topLevelKey.FindStringIndex(out); loc != nil {
		out = out[loc[0]:]
	}
	if err := yaml.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("config output: %v\n%s", err, out)
	}
}

func TestComposeConfigValid(t *testing.T) {
	cf := resolved(t)
	for _, s := range []string{"postgres", "redis", "n8n-main", "n8n-worker", "n8n-runner", "exporter", "prometheus", "grafana"} {
		if _, ok := cf.Services[s]; !ok {
			t.Errorf("service %s missing", s)
		}
	}
	for s, want := range map[string]string{"n8n-main": "n8nio/n8n:2.23.2", "n8n-worker": "n8nio/n8n:2.23.2", "n8n-runner": "n8nio/runners:2.23.2"} {
		if got := cf.Services[s].Image; got != want {
			t.Errorf("%s image %q, want %q", s, got, want)
		}
	}
}

func TestComposeWiring(t *testing.T) {
	cf := resolved(t)
	worker, runner, exp := cf.Services["n8n-worker"], cf.Services["n8n-runner"], cf.Services["exporter"]
	if worker.Environment["N8N_RUNNERS_BROKER_LISTEN_ADDRESS"] != "0.0.0.0" || worker.Environment["N8N_METRICS"] != "true" {
		t.Errorf("worker broker must listen on 0.0.0.0 with metrics on: %v", worker.Environment)
	}
	if !slices.Contains(worker.Command, "worker") {
		t.Errorf("worker command %v", worker.Command)
	}
	// The runner reaches the broker through the probe, which relays to the worker.
	if runner.Environment["N8N_RUNNERS_TASK_BROKER_URI"] != "http://exporter:5690" ||
		exp.Environment["PROBE_LISTEN"] != ":5690" || exp.Environment["PROBE_UPSTREAM"] != "http://n8n-worker:5679" {
		t.Errorf("runner → probe → worker wiring broken: runner %v, exporter %v", runner.Environment, exp.Environment)
	}
	if runner.MemLimit == nil {
		t.Error("the runner has no mem_limit")
	}
	if exp.Build.Dockerfile != "Dockerfile" {
		t.Errorf("exporter build %+v, want the repo's Dockerfile", exp.Build)
	}
	// A secret never gets a default in the compose file.
	for k, v := range worker.Environment {
		if isSecret(k) && v != "CHANGE_ME" && v != "" {
			t.Errorf("worker %s resolved to %q, not the .env.example placeholder", k, v)
		}
	}
}

// Without an .env the stack refuses to resolve, naming the missing secret.
func TestComposeRequiresSecrets(t *testing.T) {
	empty := t.TempDir() + "/empty.env"
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := composeConfig(t, empty)
	if err == nil {
		t.Fatalf("docker-compose config passed without secrets:\n%s", out)
	}
	if !strings.Contains(out, "POSTGRES_PASSWORD") && !strings.Contains(out, "N8N_ENCRYPTION_KEY") &&
		!strings.Contains(out, "N8N_RUNNERS_AUTH_TOKEN") && !strings.Contains(out, "GRAFANA_ADMIN_PASSWORD") {
		t.Errorf("error does not name the missing secret:\n%s", out)
	}
}

func isSecret(key string) bool {
	for _, w := range []string{"PASSWORD", "KEY", "TOKEN"} {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// Every secret in .env.example is a placeholder (or empty where optional).
func TestEnvExamplePlaceholders(t *testing.T) {
	f, err := os.Open(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	secrets := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.HasPrefix(k, "#") || !isSecret(k) {
			continue
		}
		secrets++
		if v != "CHANGE_ME" && v != "" {
			t.Errorf(".env.example %s=%q: want CHANGE_ME", k, v)
		}
	}
	if secrets < 4 {
		t.Errorf("only %d secrets in .env.example", secrets)
	}
}
