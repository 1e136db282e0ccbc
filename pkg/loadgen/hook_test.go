package loadgen_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// A step hook's attachment is in the step before OnStep sees it and before
// the result keeps it, and its source is recorded in the settings. The
// hook is loadctl's real one, against pkg/snapshot's exporter fixture.
func TestStepHookAttachesBeforeTheStepIsStored(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) }))
	defer app.Close()
	exp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../snapshot/testdata/exporter.prom")
	}))
	defer exp.Close()
	var seen []*comparison.Comparison
	sw := &loadgen.Sweep{
		Plan:   loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{1, 2}), Step: 200 * time.Millisecond},
		Target: &loadgen.Target{URLs: []string{app.URL}, Checks: loadgen.Checks{Status: []int{200}}, Client: loadgen.NewClient(5*time.Second, 4)},
		Hook:   &comparison.Hook{Reader: &snapshot.Reader{URL: exp.URL + "/metrics"}},
		OnStep: func(s loadgen.StepResult) { seen = append(seen, comparison.Of(s)) },
	}
	res, err := sw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Settings.Exporter != exp.URL+"/metrics" || len(res.Steps) != 2 || len(seen) != 2 {
		t.Fatalf("settings.exporter %q, %d steps, OnStep saw %d", res.Settings.Exporter, len(res.Steps), len(seen))
	}
	for i, s := range res.Steps {
		c := comparison.Of(s)
		if c == nil || c.Error != "" || c.Bottleneck != "runner" || seen[i] == nil || seen[i].Ceiling != c.Ceiling {
			t.Errorf("step %d: stored %+v, OnStep saw %+v", i+1, c, seen[i])
		}
	}
}
