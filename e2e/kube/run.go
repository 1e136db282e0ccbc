package kube

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// Names and paths the scripts use, as env.sh sets them.
const (
	DefaultState = "/var/lib/n8n-ceiling-kube"
	DefaultCache = "/var/cache/n8n-ceiling/kube"
	NetnsName    = "n8n-ceiling-kube"
	HostVeth     = "nck-host"
)

// Dir is the directory holding build.sh, up.sh and down.sh.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Up runs up.sh with env added, copies its output to log, and returns the
// endpoints it printed as `kube: <name> <value>` lines.
func Up(ctx context.Context, env map[string]string, log io.Writer) (lab.Endpoints, error) {
	var out bytes.Buffer
	if err := runScript(ctx, "up.sh", env, io.MultiWriter(&out, log)); err != nil {
		return nil, err
	}
	return ParseEndpoints(&out)
}

// Down runs down.sh with env added.
func Down(ctx context.Context, env map[string]string, log io.Writer) error {
	return runScript(ctx, "down.sh", env, log)
}

// ParseEndpoints reads `kube: <name> <value>` lines, ignoring all others,
// with the lab's parser and rules.
func ParseEndpoints(r io.Reader) (lab.Endpoints, error) {
	var relabelled strings.Builder
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "kube: "); ok {
			relabelled.WriteString("lab: " + rest + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return lab.ParseEndpoints(strings.NewReader(relabelled.String()))
}

func runScript(ctx context.Context, name string, env map[string]string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(Dir(), name))
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kube %s: %w", name, err)
	}
	return nil
}
