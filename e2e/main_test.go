// Package e2e holds the end-to-end tests against the real n8n lab. They run
// when N8N_CEILING_E2E=1 (make test sets it) and skip otherwise, so that
// `go test ./...` stays fast.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/endpoints"
)

func enabled() bool { return os.Getenv("N8N_CEILING_E2E") == "1" }

func TestMain(m *testing.M) {
	code := m.Run()
	// The lab is torn down after the suite unless asked to stay.
	if enabled() && os.Getenv("LAB_KEEP") != "1" {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		if err := lab.Down(ctx, nil, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: lab down:", err)
		}
		cancel()
	}
	os.Exit(code)
}

// upLab brings the lab into the given shape and returns its endpoints.
func upLab(t *testing.T, env map[string]string) endpoints.Endpoints {
	t.Helper()
	if !enabled() {
		t.Skip("real-n8n e2e: set N8N_CEILING_E2E=1 (make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	eps, err := lab.Up(ctx, env, testLog{t})
	if err != nil {
		t.Fatalf("lab up %v: %v", env, err)
	}
	t.Logf("lab up %v in %v", env, time.Since(start).Round(time.Second))
	return eps
}

func must(t *testing.T, eps endpoints.Endpoints, name string) string {
	t.Helper()
	u, err := eps.Must(name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// testLog sends script output to the test log line by line.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Logf("%s", p)
	return len(p), nil
}
