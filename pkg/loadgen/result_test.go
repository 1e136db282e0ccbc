package loadgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// On the fake clock (synctest) the run has no failure to flake on: the
// fail_rate threshold always passes.
func TestResultJSONRoundTrip(t *testing.T) {
	synctest.Test(t, testResultJSONRoundTrip)
}

func testResultJSONRoundTrip(t *testing.T) {
	tgt := fakeTarget(t, delayHandler(20*time.Millisecond), 5*time.Second)
	tgt.URLs = []string{"http://bench:s3cret-pass@fake/hook?token=s3cret-query"}
	tgt.Header = map[string][]string{"Authorization": {"Bearer s3cret-token"}}
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Open, Steps: OpenSteps([]float64{20, 40}), Step: 400 * time.Millisecond, MaxInFlight: 10},
		Target: tgt,
	})
	th, _ := ParseThreshold("fail_rate<0.05")
	res.Thresholds = append(res.Thresholds, th.Check(res.Total))
	var first bytes.Buffer
	if err := WriteJSON(&first, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(first.String(), "s3cret") {
		t.Fatal("a header value, URL password or query value reached the JSON")
	}
	if !strings.Contains(first.String(), "token=xxxxx") || strings.Contains(first.String(), `"body"`) {
		t.Errorf("want the query key kept and no body by default:\n%s", first.String())
	}
	back, err := ReadJSON(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := WriteJSON(&second, back); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Errorf("round trip changed the document:\n%s\nvs\n%s", first.String(), second.String())
	}
	if back.Schema != SchemaVersion || len(back.Steps) != 2 || back.Steps[1].Load.Rate != 40 ||
		back.Settings.HeaderNames[0] != "Authorization" || back.Steps[0].Figures.Passed == 0 || !back.Thresholds[0].Passed {
		t.Errorf("decoded %+v", back)
	}
}

func TestReadJSONRejectsOtherSchema(t *testing.T) {
	doc, _ := json.Marshal(map[string]any{"schema": "loadctl.sweep/v0", "steps": []any{}})
	if _, err := ReadJSON(bytes.NewReader(doc)); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("err = %v", err)
	}
	if _, err := ReadJSON(strings.NewReader("{")); err == nil {
		t.Error("truncated JSON accepted")
	}
}

// RecordBody keeps a JSON body in the settings; an upload never is.
func TestRecordBody(t *testing.T) {
	tgt := okTarget("http://127.0.0.1:1/x")
	for _, c := range []struct {
		record      bool
		contentType string
		want        string
	}{
		{false, "application/json", ""},
		{true, "application/json", `{"sleep_ms":1}`},
		{true, "application/octet-stream", ""},
	} {
		tgt.ContentType = c.contentType
		set := (&Sweep{Target: tgt, RecordBody: c.record}).settings()
		if set.Body != c.want || set.BodyBytes != len(tgt.Body) || set.ContentType != c.contentType {
			t.Errorf("record %v %s: body %q, %d bytes, %q", c.record, c.contentType, set.Body, set.BodyBytes, set.ContentType)
		}
	}
}
