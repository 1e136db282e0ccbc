package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/headless"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// sampleResult is a finished two-case run with a seed block.
func sampleResult(t *testing.T) *Result {
	t.Helper()
	s, err := Parse(strings.NewReader(minimalSpec + "seed: {source: \"seed article\", columns: [\"req/s\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := sampleCase()
	a.Seed, a.Group, a.Passed = map[string]string{"req/s": "1.66"}, "g", true
	a.Checks = Expect{Bottleneck: "runner"}.Evaluate(&a)
	b := sampleCase()
	b.Name, b.Group, b.Measured.Ceiling = "limit-10|x", "g", 8.9
	b.Predicted = &Prediction{ForLoad: 9.43, Bottleneck: "runner"}
	b.Checks = Expect{Within: ptr(0.01)}.Evaluate(&b)
	s.Cases = append(s.Cases, Case{Name: "b"})
	started := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return &Result{Schema: SchemaVersion, Spec: s, Started: started, Finished: started.Add(time.Minute), Cases: []CaseResult{a, b}}
}

func TestJSONRoundTrip(t *testing.T) {
	res := sampleResult(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Cases, res.Cases) || back.Spec.Name != res.Spec.Name || back.Spec.Load.Step != res.Spec.Load.Step {
		t.Errorf("round trip changed the result:\n%+v\n%+v", back.Cases, res.Cases)
	}
	wrong := strings.Replace(buf.String(), SchemaVersion, "loadctl.experiment/v0", 1)
	if _, err := ReadJSON(strings.NewReader(wrong)); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("other schema accepted: %v", err)
	}
}

func TestMarkdownPutsSeedMeasuredAndPredictedSideBySide(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, []*Result{sampleResult(t)}); err != nil {
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

func TestTableListsFailedChecks(t *testing.T) {
	var buf bytes.Buffer
	if err := Table(&buf, sampleResult(t)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "FAILED limit-10|x: within") || !strings.Contains(out, "some checks FAILED") {
		t.Errorf("table:\n%s", out)
	}
}

var externalRef = regexp.MustCompile(`(?i)(src|href)="(https?:)?//`)

// The HTML report renders in headless Chromium (networking off) with its
// chart, and references nothing outside the file. EXPERIMENT_RENDER_HTML
// names a report written elsewhere (the lab e2e's) to render instead.
func TestHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	b := headless.Browser{Path: testtool.Require(t, headless.Binary, "chromium"),
		Profile: filepath.Join(dir, "profile"), Width: 1200, Height: 1600}
	page := os.Getenv("EXPERIMENT_RENDER_HTML")
	if page == "" {
		page = filepath.Join(dir, "report.html")
		var buf bytes.Buffer
		if err := HTML(&buf, sampleResult(t)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dom, err := b.DumpDOM(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<svg"); n != 1 {
		t.Errorf("rendered DOM has %d charts, want 1", n)
	}
	if m := externalRef.FindString(dom); m != "" {
		t.Errorf("rendered DOM references %q", m)
	}
	if !strings.Contains(dom, "Measured vs predicted ceiling per case") || !strings.Contains(dom, "<circle") {
		t.Error("rendered DOM lacks the chart contents")
	}
	shot := filepath.Join(dir, "shot.png")
	if err := b.Screenshot(page, shot); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Errorf("screenshot %v %v: want a real page", st, err)
	}
}
