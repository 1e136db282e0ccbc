package experiment

import (
	"maps"
	"os"
	"slices"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// hookEnv is the environment the apply command runs with: loadctl's own
// plus the case env, sorted by name so the command sees a stable order.
func hookEnv(env map[string]string) []string {
	out := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// caseSecrets hides the values the case's hook could print: those of
// secret-looking names in its whole environment.
func caseSecrets(env map[string]string) *redact.Secrets {
	return redact.EnvSecrets(hookEnv(env))
}

// redactEnv is the case env as a result records it: values of
// secret-looking names are masked, the others have known secrets and URL
// credentials hidden.
func redactEnv(env map[string]string, sec *redact.Secrets) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		if redact.SecretName(k) {
			v = redact.Mask
		}
		out[k] = sec.Text(v)
	}
	return out
}

// forResult is the spec as a result echoes it: URLs and argv redacted,
// request bodies dropped unless keepBody.
func (s *Spec) forResult(keepBody bool) *Spec {
	c := *s
	c.Apply.Command = textAll(s.Apply.Command)
	c.Target = s.Target.forResult(keepBody)
	c.Cases = slices.Clone(s.Cases)
	for i, cs := range c.Cases {
		if cs.Target != nil {
			t := cs.Target.forResult(keepBody)
			c.Cases[i].Target = &t
		}
	}
	return &c
}

func (t Target) forResult(keepBody bool) Target {
	t.URLs = redact.URLs(t.URLs)
	t.Exporter = redact.URL(t.Exporter)
	if !keepBody {
		t.Body = nil
	}
	return t
}

func textAll(v []string) []string {
	if v == nil {
		return nil
	}
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = redact.Text(s)
	}
	return out
}
