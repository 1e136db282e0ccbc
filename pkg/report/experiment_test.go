package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
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
	res := sampleExperiment(t)
	res.Cases[0].N8nVersion = "2.41.1"
	if err := ExperimentMarkdown(&buf, []*experiment.Result{res}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"| case | seed: req/s | measured | ceiling | measured÷ceiling | binding | MVA | MVA÷measured |",
		"| limit-5 | 1.66 | 4.600/s | 4.717/s | 0.975 | slots:runner:n8n-lab-worker-1 | 4.700/s | 1.022 |",
		// A result written before the bound analysis: the ceiling read
		// after the load, the slot side, no MVA.
		`| limit-10\|x | - | 8.900/s | 9.430/s | 0.944 | runner | - | - |`,
		"Seed: seed article.",
		// the version main stated, once, where a case recorded one
		" UTC on n8n 2.41.1, 2 of ",
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

// A stage the exporter had no service time for reads "not measured"; a
// measured one, its time and source.
func TestExperimentHTMLNamesUnmeasuredStages(t *testing.T) {
	var buf bytes.Buffer
	if err := ExperimentHTML(&buf, sampleExperiment(t)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"service time job not measured, task 1.060 s (probe)", "service time job not measured, task not measured"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "0.000 s") {
		t.Error(`page prints an unmeasured stage as "0.000 s"`)
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
	checkDOM(t, b, page, 1, "Measured vs the exporter's ceiling and the MVA, per case", "<circle")
	shot := filepath.Join(dir, "shot.png")
	if err := b.Screenshot(page, shot); err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, shot)
}

// A case swept over several steps lists each step with the ceiling and the
// MVA the exporter gave at that step's end; a step without a read shows
// dashes.
func TestMarkdownStepsCarryTheModel(t *testing.T) {
	res := sampleExperiment(t)
	raw, _ := json.Marshal(&comparison.Comparison{Ceiling: 40, Binding: "cpu:host",
		Prediction: &comparison.Prediction{Model: comparison.ModelMVA, Throughput: 19}})
	res.Cases[0].Sweep = &loadgen.Result{Steps: []loadgen.StepResult{
		{Load: loadgen.Step{VUs: 1}, Figures: loadgen.Summary{Throughput: 20, PassRate: 1}, Exporter: raw},
		{Load: loadgen.Step{VUs: 4}, Figures: loadgen.Summary{Throughput: 38, PassRate: 1}},
	}}
	var buf bytes.Buffer
	if err := ExperimentMarkdown(&buf, []*experiment.Result{res}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| case | step | passing req/s | p95 | fail rate | ceiling | measured÷ceiling | binding | MVA | MVA÷measured |",
		"| limit-5 | 1 VU | 20.00 | - | 0.0% | 40.000/s | 0.500 | cpu:host | 19.000/s | 0.950 |",
		"| limit-5 | 4 VU | 38.00 | - | 0.0% | - | - | - | - | - |",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := ExperimentHTML(&buf, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>MVA÷measured</th>", "<td>40.000/s</td><td>0.500</td><td>cpu:host</td><td>19.000/s</td><td>0.950</td>"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
