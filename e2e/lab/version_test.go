package lab

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Version is LAB_N8N_VERSION when given, else the newest version env.sh
// supports (the last of LAB_N8N_SUPPORTED).
func TestVersion(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(Dir(), "env.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`LAB_N8N_SUPPORTED="([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("env.sh sets no LAB_N8N_SUPPORTED")
	}
	supported := strings.Fields(string(m[1]))
	t.Setenv("LAB_N8N_VERSION", "")
	if got, err := Version(context.Background(), nil); err != nil || got != supported[len(supported)-1] {
		t.Errorf("default %q (%v), want the newest of %v", got, err, supported)
	}
	if got, err := Version(context.Background(), map[string]string{"LAB_N8N_VERSION": supported[0]}); err != nil || got != supported[0] {
		t.Errorf("told %s, got %q (%v)", supported[0], got, err)
	}
}
