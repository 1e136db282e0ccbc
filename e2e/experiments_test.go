package e2e

import (
	"path/filepath"
	"testing"
)

// TestExperiments runs every shipped experiment spec against the real lab
// through `loadctl experiment`. The specs carry their own acceptance checks
// (measured vs predicted within ±5 %, the bottleneck, memory rise, OOM,
// the worker without runner); loadctl exits 99 when one fails.
func TestExperiments(t *testing.T) {
	upLab(t, map[string]string{"LAB_PROBE": "1"})
	loadctl := buildTool(t, "cmd/loadctl")
	dir := t.TempDir()
	for _, name := range []string{"runner-limit", "worker-bound", "memory", "pairs", "scenarios"} {
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
