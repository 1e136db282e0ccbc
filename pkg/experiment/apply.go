package experiment

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
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
	Log     func(line string) // stderr lines of the hook, for progress; may be nil
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
// hook fails.
func (c *CommandApplier) Apply(ctx context.Context, env map[string]string) (endpoints.Endpoints, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	var stdout bytes.Buffer
	stderr := &lineWriter{log: c.Log}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	cmd.WaitDelay = 5 * time.Second // a child holding the pipes must not hang us
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %v", c.Timeout)
		}
		return nil, fmt.Errorf("apply %s: %w; stderr tail: %s", strings.Join(c.Argv, " "), err, stderr.tail())
	}
	eps, err := endpoints.Parse(&stdout)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", strings.Join(c.Argv, " "), err)
	}
	return eps, nil
}

// lineWriter forwards complete lines to log and keeps a bounded tail.
type lineWriter struct {
	log     func(string)
	partial []byte
	last    []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.last = append(w.last, p...)
	if len(w.last) > maxHookTail {
		w.last = w.last[len(w.last)-maxHookTail:]
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		if w.log != nil {
			w.log(string(w.partial[:i]))
		}
		w.partial = w.partial[i+1:]
	}
	if len(w.partial) > maxHookTail { // a line without end: keep memory bounded
		w.partial = w.partial[:0]
	}
	return len(p), nil
}

func (w *lineWriter) tail() string { return strings.TrimSpace(string(w.last)) }
