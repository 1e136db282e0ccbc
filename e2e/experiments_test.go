package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExperiments runs every shipped experiment spec (each e2e/experiments/
// *.yaml) against the real lab through `loadctl experiment`. The specs carry
// their own acceptance checks (measured ÷ the exporter's ceiling, the
// binding resource, the MVA at every step, memory rise, OOM, the worker
// without runner); loadctl exits 99 when one fails.
func TestExperiments(t *testing.T) {
	specs, err := filepath.Glob("experiments/*.yaml")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no experiment specs: %v", err)
	}
	upLab(t, map[string]string{"LAB_PROBE": "1"})
	loadctl := buildTool(t, "cmd/loadctl")
	dir := resultsDir() // make e2e-repeat reads the results back
	if dir == "" {
		dir = t.TempDir()
	}
	for _, spec := range specs {
		name := strings.TrimSuffix(filepath.Base(spec), ".yaml")
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			code, log := runToolIn(t, "..", loadctl, "experiment", "--spec", "e2e/experiments/"+name+".yaml",
				"--out", out+".json", "--report", out+".html", "--markdown", out+".md", "--quiet")
			t.Logf("loadctl experiment %s: exit %d\n%s", name, code, log)
			if code != 0 {
				t.Errorf("experiment %s: exit %d, want 0 (99 means a check failed)", name, code)
			}
		})
	}
}
