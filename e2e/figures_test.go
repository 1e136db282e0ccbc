package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/repeat"
)

// resultsDir is where a run keeps what make e2e-repeat compares across
// runs (E2E_RESULTS), made on first use; empty when unset. Should making it
// fail, the first write there names the path.
var resultsDir = sync.OnceValue(func() string {
	dir := os.Getenv("E2E_RESULTS")
	if dir != "" {
		_ = os.MkdirAll(dir, 0o755)
	}
	return dir
})

var figuresMu sync.Mutex

// figure records a timing-sensitive check's number for make e2e-repeat:
// one JSON line in $E2E_RESULTS/figures.jsonl. Without E2E_RESULTS it
// records nothing; the test itself still judges the figure.
func figure(t *testing.T, check, want string, value float64, passed bool) {
	t.Helper()
	dir := resultsDir()
	if dir == "" {
		return
	}
	line, err := json.Marshal(repeat.Figure{Test: t.Name(), Check: check, Want: want, Value: value, Passed: passed})
	if err != nil {
		t.Fatalf("figure %s: %v", check, err)
	}
	figuresMu.Lock()
	defer figuresMu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, repeat.FiguresFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("figure %s: %v", check, err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatalf("figure %s: %v", check, err)
	}
}
