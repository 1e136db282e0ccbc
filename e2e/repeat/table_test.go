package repeat

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRowsAcrossRuns(t *testing.T) {
	runs := []Run{
		{Figures: []Figure{{Test: "T", Check: "ratio", Want: "0.97–1.03", Value: 0.99, Passed: true}, {Test: "T", Check: "mean", Value: 4.8, Passed: true}}},
		{Figures: []Figure{{Test: "T", Check: "ratio", Want: "0.97–1.03", Value: 1.04, Passed: false}}},
		{Figures: []Figure{{Test: "T", Check: "ratio", Value: 0.5, Passed: false}, {Test: "T", Check: "ratio", Value: 1.01, Passed: true}}},
	}
	rows := Rows(runs)
	if len(rows) != 2 || rows[0].Key != "T · ratio" || rows[1].Key != "T · mean" {
		t.Fatalf("rows %+v, want ratio then mean", rows)
	}
	r := rows[0]
	if r.Low != 0.99 || r.High != 1.04 || r.Passed != 2 || r.Values[2] != 1.01 {
		t.Errorf("ratio row %+v: want low 0.99, high 1.04, 2 passed, run 3's last figure 1.01", r)
	}
	if m := rows[1]; m.Passed != 1 || !math.IsNaN(m.Values[1]) {
		t.Errorf("mean row %+v: want missing in runs 2 and 3", m)
	}
	var out bytes.Buffer
	bad, err := Write(&out, rows, len(runs))
	if err != nil || bad != 2 {
		t.Errorf("Write: %d bad, %v; want 2 bad", bad, err)
	}
	if !strings.Contains(out.String(), "2/3") || !strings.Contains(out.String(), "1/3") {
		t.Errorf("table lacks the pass counts:\n%s", out.String())
	}
}

func TestReadRunTakesExperimentChecks(t *testing.T) {
	dir := t.TempDir()
	res := `{"schema":"loadctl.experiment/v1","spec":{"name":"runner-limit"},"cases":[{"name":"limit-2","checks":[
	  {"name":"measured_over_ceiling","want":"0.97 to 1.03","got":"1.009","passed":true,"figure":1.009},
	  {"name":"bottleneck","want":"runner","got":"runner","passed":true}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "runner-limit.json"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	line := `{"test":"TestProbe","check":"mean running","want":"≥ 4.5","value":4.9,"passed":true}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, FiguresFile), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 2 || r.Figures[0].Check != "mean running" ||
		r.Figures[1].key() != "experiment runner-limit/limit-2 · measured_over_ceiling" || r.Figures[1].Value != 1.009 {
		t.Errorf("figures %+v: want the Go test's, then the experiment's numeric check only", r.Figures)
	}
	if err := os.WriteFile(filepath.Join(dir, FiguresFile), []byte("{broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(dir); err == nil || !strings.Contains(err.Error(), FiguresFile+":1") {
		t.Errorf("a broken line: got %v, want an error naming the file and line", err)
	}
}
