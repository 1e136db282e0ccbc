package redact

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// secretName matches environment variable names whose values must not
// be shown. PWD (the working directory) does not match.
var secretName = regexp.MustCompile(`(?i)token|secret|passw|passphrase|key|auth|credential|cookie|private|dsn`)

// MinSecretLen is the shortest value Secrets hides: a shorter one (KEY=1,
// AUTH=true) would blank every occurrence of a common string and hide
// nothing worth hiding.
const MinSecretLen = 6

// SecretName reports whether a variable's name says its value is secret.
func SecretName(name string) bool { return secretName.MatchString(name) }

// Secrets hides known secret values, and URL passwords and query values,
// in text. The zero value hides URLs only.
type Secrets struct {
	r *strings.Replacer
}

// EnvSecrets collects the values of secret-looking names from NAME=value
// entries, as os.Environ and exec.Cmd.Env hold them.
func EnvSecrets(env []string) *Secrets {
	var vals []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && len(v) >= MinSecretLen && SecretName(k) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return &Secrets{}
	}
	// Longest first, so a value that contains another is hidden whole.
	slices.SortFunc(vals, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	vals = slices.Compact(vals)
	oldnew := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		oldnew = append(oldnew, v, Mask)
	}
	return &Secrets{r: strings.NewReplacer(oldnew...)}
}

// Text hides every known value in s, then every URL's password and
// query values.
func (s *Secrets) Text(t string) string {
	if s != nil && s.r != nil {
		t = s.r.Replace(t)
	}
	return Text(t)
}
