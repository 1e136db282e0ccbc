package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// sampleExperiment is pkg/experiment's sample run (two cases, a seed
// block, a failed check), kept there as JSON next to the code that
// builds it.
func sampleExperiment(t *testing.T) *experiment.Result {
	t.Helper()
	f, err := os.Open("../experiment/testdata/sample-result.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := experiment.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMarkdownPutsSeedMeasuredAndPredictedSideBySide(t *testing.T) {
	var buf bytes.Buffer
	if err := ExperimentMarkdown(&buf, []*experiment.Result{sampleExperiment(t)}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"| case | seed: req/s | measured | predicted | ratio | bottleneck |",
		"| limit-5 | 1.66 | 4.600/s | 4.717/s | 0.975 | runner |",
		`| limit-10\|x | - | 8.900/s | 9.430/s | 0.944 |`,
		"Seed: seed article.",
		"- g: **limit-10|x** (limit-5 4.600/s vs limit-10|x 8.900/s)",
		"**some checks failed**",
		`limit-10\|x: within want ±1.0% of predicted`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestExperimentTableListsFailedChecks(t *testing.T) {
	var buf bytes.Buffer
	if err := ExperimentTable(&buf, sampleExperiment(t)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "FAILED limit-10|x: within") || !strings.Contains(out, "some checks FAILED") {
		t.Errorf("table:\n%s", out)
	}
}

// The HTML report renders in headless Chromium (networking off) with its
// chart, and references nothing outside the file. EXPERIMENT_RENDER_HTML
// names a report written elsewhere (the lab e2e's) to render instead.
func TestExperimentHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	b := browser(t, dir)
	page := os.Getenv("EXPERIMENT_RENDER_HTML")
	if page == "" {
		page = filepath.Join(dir, "report.html")
		var buf bytes.Buffer
		if err := ExperimentHTML(&buf, sampleExperiment(t)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkDOM(t, b, page, 1, "Measured vs predicted ceiling per case", "<circle")
	shot := filepath.Join(dir, "shot.png")
	if err := b.Screenshot(page, shot); err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, shot)
}
