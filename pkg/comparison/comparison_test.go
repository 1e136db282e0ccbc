package comparison

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// fixtureServer serves pkg/snapshot's exporter fixture on /metrics.
func fixtureServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../snapshot/testdata/exporter.prom")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// On the fixture (two runner-bound workers, ceiling 9.43/s) a 20-VU step
// that passed 4.7/s is half the ceiling, and the model predicts the
// ceiling with nothing waiting in Redis.
func TestHookAttachesTheComparison(t *testing.T) {
	srv := fixtureServer(t)
	h := &Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}
	sr := loadgen.StepResult{Load: loadgen.Step{VUs: 20}, Figures: loadgen.Summary{Throughput: 4.716981132075472}}
	h.Attach(context.Background(), &sr)
	c := Of(sr)
	if c == nil || c.Error != "" || c.Bottleneck != "runner" || c.Effective != 10 || math.Abs(c.Ratio-0.5) > 1e-9 {
		t.Fatalf("comparison %+v", c)
	}
	// The fixture is from an exporter before the bound analysis: no
	// resource series, so the slot formula stands in for the MVA.
	if p := c.Prediction; p == nil || p.Model != ModelSlots || math.Abs(p.Throughput-c.Ceiling) > 1e-9 || p.QueueWait != 0 {
		t.Errorf("prediction %+v for ceiling %v", p, c.Ceiling)
	}
	if c.Binding != "" || !strings.Contains(c.MVAError, "no resource series") {
		t.Errorf("binding %q, MVA error %q: want none, and why", c.Binding, c.MVAError)
	}
	// The step's `exporter` object keeps the documented field names.
	var obj map[string]any
	if err := json.Unmarshal(sr.Exporter, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ceiling_per_second", "measured_over_ceiling", "bottleneck", "effective_concurrency", "prediction"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("exporter object lacks %q: %s", k, sr.Exporter)
		}
	}
}

// An open-loop step gets no closed-loop prediction; a failed scrape is the
// comparison's error; a sweep that is ending attaches nothing.
func TestHookOpenLoopErrorsAndCancel(t *testing.T) {
	srv := fixtureServer(t)
	open := loadgen.StepResult{Load: loadgen.Step{Rate: 5}}
	(&Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}).Attach(context.Background(), &open)
	if c := Of(open); c == nil || c.Prediction != nil || c.Ceiling == 0 {
		t.Errorf("open loop comparison %+v", c)
	}
	missing := loadgen.StepResult{Load: loadgen.Step{VUs: 1}}
	(&Hook{Reader: &snapshot.Reader{URL: srv.URL + "/nope"}}).Attach(context.Background(), &missing)
	if c := Of(missing); c == nil || !strings.Contains(c.Error, "404") || c.Ceiling != 0 {
		t.Errorf("comparison after a 404: %+v", c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ended := loadgen.StepResult{Load: loadgen.Step{VUs: 1}}
	(&Hook{Reader: &snapshot.Reader{URL: srv.URL + "/metrics"}}).Attach(ctx, &ended)
	if ended.Exporter != nil || Of(ended) != nil {
		t.Errorf("cancelled sweep attached %s", ended.Exporter)
	}
}

// A sweep result written and read back keeps each step's comparison; one
// that does not decode is shown as its error, not dropped.
func TestOfAfterJSONRoundTrip(t *testing.T) {
	c := &Comparison{Ceiling: 3.5, Ratio: 0.9, Bottleneck: "worker", Effective: 7, Binding: "slots:worker:w1", SlotCeiling: 3.5,
		Prediction: &Prediction{Model: ModelMVA, Throughput: 3.4, MeanLatencySeconds: 2, QueueWait: 1, ResponseSeconds: 2,
			Binding: "slots:worker:w1", LargestQueue: "slots:worker:w1", LatencySeconds: 1.1, LatencyFromVUs: 1}}
	raw, _ := json.Marshal(c)
	res := &loadgen.Result{Schema: loadgen.SchemaVersion, Steps: []loadgen.StepResult{{Exporter: raw}, {Index: 1, Exporter: json.RawMessage(`"text"`)}, {Index: 2}}}
	var buf bytes.Buffer
	if err := loadgen.WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	back, err := loadgen.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := Of(back.Steps[0]); !reflect.DeepEqual(got, c) {
		t.Errorf("round trip: %+v, want %+v", got, c)
	}
	if got := Of(back.Steps[1]); got == nil || !strings.Contains(got.Error, "step 2: unreadable") {
		t.Errorf("undecodable comparison: %+v", got)
	}
	if got := Of(back.Steps[2]); got != nil {
		t.Errorf("a step without comparison gave %+v", got)
	}
}

// The source and a failed scrape's error hide the URL's password and
// query values: the HTTP client's error quotes the URL whole.
func TestSourceAndErrorsHideURLSecrets(t *testing.T) {
	srv := fixtureServer(t)
	closed := testtool.ClosedAddr(t)
	for _, u := range []string{
		strings.Replace(srv.URL, "http://", "http://u:P2@", 1) + "/nope?auth=T2",
		"http://u:P2@" + closed + "/metrics?auth=T2",
	} {
		h := &Hook{Reader: &snapshot.Reader{URL: u}}
		sr := loadgen.StepResult{Load: loadgen.Step{VUs: 1}}
		h.Attach(context.Background(), &sr)
		c := Of(sr)
		if c == nil || c.Error == "" {
			t.Fatalf("%s: comparison %+v, want an error", u, c)
		}
		for _, s := range []string{h.Source(), c.Error, string(sr.Exporter)} {
			if strings.Contains(s, "P2") || strings.Contains(s, "T2") || !strings.Contains(s, "auth=xxxxx") {
				t.Errorf("%q: want the password and query value hidden, the key kept", s)
			}
		}
	}
}

func TestSourceHidesPassword(t *testing.T) {
	h := &Hook{Reader: &snapshot.Reader{URL: "http://user:secret@127.0.0.1:9810/metrics"}}
	if got := h.Source(); strings.Contains(got, "secret") || !strings.Contains(got, "127.0.0.1:9810") {
		t.Errorf("source %q", got)
	}
}
