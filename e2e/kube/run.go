package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
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
func Up(ctx context.Context, env map[string]string, log io.Writer) (endpoints.Endpoints, error) {
	var out bytes.Buffer
	if err := lab.Script(ctx, Dir(), "up.sh", env, io.MultiWriter(&out, log)); err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	return ParseEndpoints(&out)
}

// Down runs down.sh with env added.
func Down(ctx context.Context, env map[string]string, log io.Writer) error {
	if err := lab.Script(ctx, Dir(), "down.sh", env, log); err != nil {
		return fmt.Errorf("kube: %w", err)
	}
	return nil
}

// ParseEndpoints reads `kube: <name> <value>` lines, ignoring all others,
// with the endpoint protocol's rules.
func ParseEndpoints(r io.Reader) (endpoints.Endpoints, error) {
	return endpoints.ParsePrefixed(r, "kube: ")
}
