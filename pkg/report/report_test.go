package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

var (
	sweepOnce sync.Once
	sweepRes  *loadgen.Result
	sweepErr  error
)

// realResult runs a short closed sweep against a local server with two
// slots of 50 ms (a 40/s ceiling) and an exporter serving that shape
// (testdata/exporter.prom), so every report is rendered from measured
// data and the MVA's predictions.
func realResult(t *testing.T) *loadgen.Result {
	t.Helper()
	sweepOnce.Do(func() { sweepRes, sweepErr = runRealSweep() })
	if sweepErr != nil {
		t.Fatal(sweepErr)
	}
	return sweepRes
}

func runRealSweep() (*loadgen.Result, error) {
	app := httptest.NewServer(testtool.SlotHandler(2, 50*time.Millisecond))
	defer app.Close()
	fixture, err := os.ReadFile("testdata/exporter.prom")
	if err != nil {
		return nil, err
	}
	exp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(fixture) }))
	defer exp.Close()
	check, _ := loadgen.ParseFieldCheck("ok==true")
	s := &loadgen.Sweep{
		Plan: loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{1, 4, 8}),
			Step: 700 * time.Millisecond, Warmup: 150 * time.Millisecond},
		Target: &loadgen.Target{URLs: []string{app.URL + "/webhook/bench"}, Body: []byte(`{"sleep_ms":50}`),
			ContentType: "application/json", Checks: loadgen.Checks{Status: []int{200}, Fields: []loadgen.FieldCheck{check}},
			Client: loadgen.NewClient(5*time.Second, 8)},
		Hook: &comparison.Hook{Reader: &snapshot.Reader{URL: exp.URL + "/metrics"}},
	}
	res, err := s.Run(context.Background())
	if err != nil {
		return nil, err
	}
	for _, expr := range []string{"fail_rate<0.05", "p95<1ms"} {
		th, err := loadgen.ParseThreshold(expr)
		if err != nil {
			return nil, err
		}
		res.Thresholds = append(res.Thresholds, th.Check(res.Total))
	}
	return res, nil
}

func TestCSVColumns(t *testing.T) {
	res := realResult(t)
	var buf bytes.Buffer
	if err := CSV(&buf, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "step,load,vus,rate_per_second,pass_rate,error_rate,errors_status,errors_timeout,errors_connection,errors_check,errors_dropped," +
		"throughput_per_second,p50_seconds,p90_seconds,p95_seconds,p99_seconds,mean_in_flight,requests,knee," +
		"ceiling_per_second,measured_over_ceiling,bottleneck,predicted_throughput_per_second,predicted_mean_latency_seconds,predicted_queue_wait,exporter_error," +
		"binding,prediction_model,predicted_over_measured,one_request_latency_seconds"
	if got := strings.Join(recs[0], ","); got != want {
		t.Fatalf("header\n%s\nwant\n%s", got, want)
	}
	if len(recs) != 1+len(res.Steps) {
		t.Fatalf("%d rows for %d steps", len(recs)-1, len(res.Steps))
	}
	idx := map[string]int{}
	for i, h := range recs[0] {
		idx[h] = i
	}
	for i, r := range recs[1:] {
		s := res.Steps[i]
		if r[idx["vus"]] != strconv.Itoa(s.Load.VUs) || r[idx["bottleneck"]] != "runner" || r[idx["binding"]] != "slots:runner:worker-1" ||
			r[idx["prediction_model"]] != "mva" || r[idx["one_request_latency_seconds"]] == "" {
			t.Errorf("row %d: %v", i, r)
		}
		pred, _ := strconv.ParseFloat(r[idx["predicted_throughput_per_second"]], 64)
		if ratio, err := strconv.ParseFloat(r[idx["predicted_over_measured"]], 64); err != nil || math.Abs(ratio-pred/s.Figures.Throughput) > 1e-9 {
			t.Errorf("row %d predicted÷measured %q, predicted %v, measured %v", i, r[idx["predicted_over_measured"]], pred, s.Figures.Throughput)
		}
		tput, err := strconv.ParseFloat(r[idx["throughput_per_second"]], 64)
		if err != nil || tput != s.Figures.Throughput {
			t.Errorf("row %d throughput %q vs %v", i, r[idx["throughput_per_second"]], s.Figures.Throughput)
		}
		if knee := r[idx["knee"]] == "true"; knee != (res.Knee != nil && res.Knee.Index == i) {
			t.Errorf("row %d knee flag %v", i, knee)
		}
	}
}

func TestTableReadingOrder(t *testing.T) {
	res := realResult(t)
	var buf bytes.Buffer
	if err := Table(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	header := strings.SplitN(out, "\n", 2)[0]
	last := -1
	for _, col := range []string{"pass", "errors", "status", "timeout", "conn", "check", "req/s", "p50", "p90", "p95", "p99", "in flight", "ceiling"} {
		i := strings.Index(header, col)
		if i <= last {
			t.Fatalf("column %q out of reading order in %q", col, header)
		}
		last = i
	}
	if !strings.Contains(out, "knee: ") || !strings.Contains(out, "threshold p95<1ms") || !strings.Contains(out, "FAILED") {
		t.Errorf("table output:\n%s", out)
	}
}

// externalRef matches anything a browser would fetch.
var externalRef = regexp.MustCompile(`(?i)(\s(src|href|xlink:href)\s*=|url\(|@import|<link|<script)`)

func TestHTMLSelfContained(t *testing.T) {
	res := realResult(t)
	var buf bytes.Buffer
	if err := HTML(&buf, res); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d charts, want 3", n)
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("external reference %q in the report", m)
	}
	for _, want := range []string{"Passing throughput per step", "predicted ceiling 40.00/s", "MVA prediction for these VUs", "MVA mean response",
		"Latency percentiles", "Error and check-failure rates", "FAILED"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if res.Knee != nil && !strings.Contains(page, "knee ") {
		t.Error("knee not marked")
	}
}

func TestNiceCeil(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, 0.7: 1, 1: 1, 1.2: 2, 2.2: 2.5, 3: 5, 7: 10, 42: 50, 0.013: 0.02} {
		if got := niceCeil(in); got < want*0.999999 || got > want*1.000001 {
			t.Errorf("niceCeil(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestErrorChartAxisStopsAtAllRequests(t *testing.T) {
	res := &loadgen.Result{Steps: []loadgen.StepResult{
		{Load: loadgen.Step{Rate: 80}, Figures: loadgen.Summary{Requests: 100, Errors: map[string]int64{"timeout": 70, "dropped": 30}}},
	}}
	c := errorChart(res)
	if got := c.yMax(); got != 1 {
		t.Errorf("error chart axis tops at %v, want 1 (100%%)", got)
	}
	if svg := latencyChart(res).SVG(); !strings.Contains(svg, "no request passed") {
		t.Error("a step without passing requests is not labelled in the latency chart")
	}
}

func TestTableNamesFirstErrors(t *testing.T) {
	res := &loadgen.Result{Total: loadgen.Summary{ErrorExamples: map[string]string{
		"connection": "dial tcp 127.0.0.1:5679: connect: connection refused", "status": "HTTP 502 Bad Gateway"}}}
	var buf bytes.Buffer
	if err := Table(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	st, conn := strings.Index(out, "first status error: HTTP 502"), strings.Index(out, "first connection error: dial tcp")
	if st < 0 || conn < 0 || st > conn {
		t.Errorf("table output:\n%s", out)
	}
}

// The knee line names the exporter's ceiling with the resource that sets
// it, measured ÷ ceiling, and the MVA's prediction for the knee's VUs.
func TestKneeLineNamesBindingAndMVA(t *testing.T) {
	step := func(c *comparison.Comparison) *loadgen.Result {
		raw, _ := json.Marshal(c)
		return &loadgen.Result{Knee: &loadgen.Knee{Index: 0, Load: loadgen.Step{VUs: 8}, MeasuredCeiling: 36.6},
			Steps: []loadgen.StepResult{{Load: loadgen.Step{VUs: 8}, Exporter: raw}}}
	}
	mva := &comparison.Comparison{Ceiling: 37.5, Ratio: 36.6 / 37.5, Bottleneck: "worker", Binding: "cpu:host",
		Prediction: &comparison.Prediction{Model: comparison.ModelMVA, Throughput: 35.9}}
	want := "knee: step 1 (8 VU), measured ceiling 36.60 req/s, exporter's ceiling 37.50 req/s set by cpu:host, measured÷ceiling 97.6%, " +
		"MVA predicted 35.90 req/s at 8 VU (predicted÷measured 98.1%)"
	if got := KneeLine(step(mva)); got != want {
		t.Errorf("knee line\n%s\nwant\n%s", got, want)
	}
	old := &comparison.Comparison{Ceiling: 9.43, Ratio: 0.5, Bottleneck: "runner"}
	if got := KneeLine(step(old)); !strings.HasSuffix(got, "set by runner slots, measured÷ceiling 50.0%") {
		t.Errorf("knee line without resources: %s", got)
	}
}
