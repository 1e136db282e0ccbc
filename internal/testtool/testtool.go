// Package testtool holds helpers shared by tests: a goroutine-safe log
// buffer, a loopback address nothing listens on, and a check that lets
// tests use an external binary (chromium, promtool, docker-compose)
// without passing silently where it is missing.
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// Require returns the path of binary on PATH. Missing, it fails t when
// CI=true or N8N_CEILING_REQUIRE_TOOLS=1 (make test must not pass
// silently), and skips t otherwise, naming the Debian package to install.
func Require(t testing.TB, binary, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(binary)
	if err == nil {
		return path
	}
	msg := binary + " not found on PATH: install the Debian package " + debianPackage + " (apt-get install " + debianPackage + ")"
	if Required() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Required reports whether missing tools fail tests rather than skip them.
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("N8N_CEILING_REQUIRE_TOOLS") == "1"
}
