package autoscale

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/headless"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// The page as a browser lays it out: four charts with their lines, and the
// checks' table.
func TestPageRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	b := headless.Browser{Path: testtool.Require(t, headless.Binary, "chromium"), Profile: filepath.Join(dir, "profile"), Width: 1100, Height: 2400}
	r := &Record{N8nVersion: "2.41.1", KEDAVersion: "2.21.0", VUs: 8, PodCeiling: 1.98, Demand: 7.5, Phases: []Phase{phase(), phase()}}
	r.Phases[0].Name = "queue"
	f, err := os.Create(filepath.Join(dir, "keda.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.HTML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dom, err := b.DumpDOM(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if n, lines := strings.Count(dom, "<svg"), strings.Count(dom, "<polyline"); n != 4 || lines < 8 {
		t.Errorf("rendered DOM has %d charts and %d lines, want 4 and at least 8", n, lines)
	}
	if !strings.Contains(dom, "<h2>saturation: s</h2>") {
		t.Error("rendered DOM lacks the saturation phase")
	}
}
