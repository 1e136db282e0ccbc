package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// Applier puts a case's setting in place and returns the endpoints it
// printed (pkg/endpoints; none is fine when the spec fixes its URLs).
type Applier interface {
	Apply(ctx context.Context, env map[string]string) (endpoints.Endpoints, error)
}

// CommandApplier runs the spec's apply command with the case env added to
// its own: the lab's `bash e2e/lab/up.sh`, `docker compose up -d
// --force-recreate runner`, or any argv that prints endpoint lines.
type CommandApplier struct {
	Argv    []string
	Dir     string // working directory; empty = current
	Timeout time.Duration
	Log     func(line string) // stderr lines of the hook, redacted, for progress; may be nil
}

// noopApplier is kind "none": the cluster is set up by hand.
type noopApplier struct{}

func (noopApplier) Apply(context.Context, map[string]string) (endpoints.Endpoints, error) {
	return endpoints.Endpoints{}, nil
}

// NewApplier builds the spec's hook; dir is where relative commands run.
func NewApplier(a Apply, dir string, log func(string)) Applier {
	if a.Kind == "none" {
		return noopApplier{}
	}
	return &CommandApplier{Argv: a.Command, Dir: dir, Timeout: a.Timeout.D(), Log: log}
}

// maxHookTail is how much of a failed hook's stderr goes into the error.
const maxHookTail = 2048

// Apply runs the command and parses its stdout. The hook's stderr is
// passed to Log line by line, and its tail ends up in the error when the
// hook fails; both with the values of its secret-looking env variables
// and every URL's credentials hidden.
func (c *CommandApplier) Apply(ctx context.Context, env map[string]string) (endpoints.Endpoints, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = hookEnv(env)
	sec := redact.EnvSecrets(cmd.Env)
	var stdout bytes.Buffer
	stderr := &lineWriter{log: c.Log, redact: sec.Text}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	cmd.WaitDelay = 5 * time.Second // a child holding the pipes must not hang us
	argv := sec.Text(strings.Join(c.Argv, " "))
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %v", c.Timeout)
		}
		return nil, fmt.Errorf("apply %s: %w; stderr tail: %s", argv, err, stderr.tail())
	}
	eps, err := endpoints.Parse(&stdout)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %s", argv, sec.Text(err.Error()))
	}
	return eps, nil
}

// lineWriter redacts complete lines, forwards them to log and keeps a
// bounded tail of the redacted text. Lines are redacted whole, so a
// secret is never cut in two before it is hidden.
type lineWriter struct {
	log     func(string)
	redact  func(string) string
	partial []byte
	last    []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := w.redact(string(w.partial[:i]))
		if w.log != nil {
			w.log(line)
		}
		w.keep(line + "\n")
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > maxHookTail { // a line without end: keep memory bounded
		w.keep(w.redact(string(w.partial)))
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

func (w *lineWriter) keep(s string) {
	w.last = append(w.last, s...)
	if len(w.last) > maxHookTail {
		w.last = w.last[len(w.last)-maxHookTail:]
	}
}

func (w *lineWriter) tail() string {
	return strings.TrimSpace(string(w.last) + w.redact(string(w.partial)))
}
