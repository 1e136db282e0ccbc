package lab

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
)

// Dir is the directory holding up.sh and down.sh.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Up runs up.sh with env added to the environment, copies its output to log
// and returns the endpoints it printed (pkg/endpoints).
func Up(ctx context.Context, env map[string]string, log io.Writer) (endpoints.Endpoints, error) {
	var out bytes.Buffer
	if err := Script(ctx, Dir(), "up.sh", env, io.MultiWriter(&out, log)); err != nil {
		return nil, err
	}
	return endpoints.Parse(&out)
}

// Version is the n8n version up.sh runs with env added to the
// environment: LAB_N8N_VERSION, else env.sh's default.
func Version(ctx context.Context, env map[string]string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", "-c", `. "$1/env.sh" && printf %s "$LAB_N8N_VERSION"`, "version", Dir())
	cmd.Env = withEnv(env)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("env.sh: %w", err)
	}
	return out.String(), nil
}

// Down runs down.sh.
func Down(ctx context.Context, env map[string]string, log io.Writer) error {
	return Script(ctx, Dir(), "down.sh", env, log)
}

// Script runs dir/name with bash, env added to the environment, and its
// stdout and stderr copied to log.
func Script(ctx context.Context, dir, name string, env map[string]string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(dir, name))
	cmd.Env = withEnv(env)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// withEnv is this process's environment with env added.
func withEnv(env map[string]string) []string {
	out := os.Environ()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// DockerHost is the lab dockerd's DOCKER_HOST, as env.sh derives it.
func DockerHost() string {
	state := os.Getenv("LAB_STATE")
	if state == "" {
		state = "/var/lib/n8n-ceiling-lab"
	}
	return "unix://" + filepath.Join(state, "docker.sock")
}
