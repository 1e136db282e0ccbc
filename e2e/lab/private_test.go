package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func privateState(t *testing.T) (state, envDir string) {
	state = t.TempDir()
	envDir = filepath.Join(state, "run", "env")
	if err := os.MkdirAll(envDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(envDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(state, "secrets.env"), filepath.Join(envDir, "main.env"), filepath.Join(envDir, "runner-1-1.env")} {
		if err := os.WriteFile(f, []byte("K=v\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return state, envDir
}

func TestCheckPrivate(t *testing.T) {
	state, envDir := privateState(t)
	if err := CheckPrivate(state); err != nil {
		t.Fatalf("private files rejected: %v", err)
	}
	for name, widen := range map[string]func() error{
		"runner-1-1.env": func() error { return os.Chmod(filepath.Join(envDir, "runner-1-1.env"), 0o644) },
		"secrets.env":    func() error { return os.Chmod(filepath.Join(state, "secrets.env"), 0o640) },
		"env":            func() error { return os.Chmod(envDir, 0o755) },
	} {
		state, envDir = privateState(t)
		if err := widen(); err != nil {
			t.Fatal(err)
		}
		if err := CheckPrivate(state); err == nil || !strings.Contains(err.Error(), name+": mode") {
			t.Errorf("widened %s: %v, want an error naming it", name, err)
		}
	}
}
