package experiment

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
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
	b.Predicted = &Prediction{ForLoad: 9.43, Ceiling: 9.43, Bottleneck: "runner"} // written before the bound analysis
	b.Model = nil
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

var update = flag.Bool("update", false, "rewrite testdata/sample-result.json")

// sampleGolden is sampleResult as JSON. pkg/report renders it in its
// experiment tests; the comparison here keeps the file true to the code
// and the JSON layout (docs/experiment-json.md) from drifting unseen.
const sampleGolden = "testdata/sample-result.json"

func TestSampleResultGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sampleResult(t)); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(sampleGolden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(sampleGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is stale: run go test ./pkg/experiment -run Golden -update and commit it", sampleGolden)
	}
}

// ReadFile reads a saved result; a file that is not one is an error that
// names its path.
func TestReadFile(t *testing.T) {
	r, err := ReadFile(sampleGolden)
	if err != nil || r.Schema != SchemaVersion || len(r.Cases) == 0 {
		t.Fatalf("sample: %v, %v", r, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema":"other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a foreign schema read as %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "absent.json")); err == nil {
		t.Error("a missing file was read")
	}
}
