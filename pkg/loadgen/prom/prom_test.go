package prom

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// A real two-step sweep against a local server, observed: the page shows
// the outcomes, the latency histogram, the step gauges reset after the
// sweep, and no name of the exporter's n8n_ namespace.
func TestMetricsEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(20 * time.Millisecond)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	m := New()
	sw := &loadgen.Sweep{
		Plan:     loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{1, 2}), Step: 300 * time.Millisecond},
		Target:   &loadgen.Target{URLs: []string{srv.URL}, Checks: loadgen.Checks{Status: []int{200}}, Client: loadgen.NewClient(5*time.Second, 4)},
		Observer: m,
	}
	res, err := sw.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`loadctl_requests_total{outcome="pass"}`, `loadctl_requests_total{outcome="timeout"} 0`,
		"loadctl_request_duration_seconds_bucket", "loadctl_step 0", "loadctl_steps_started_total 2",
		"loadctl_step_vus", "loadctl_in_flight_requests",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, "n8n_") {
		t.Error("loadctl metrics must not use the n8n_ prefix")
	}
	if res.Total.Passed == 0 {
		t.Error("no request passed")
	}
}

// A dropped start is counted but has no latency to observe.
func TestDroppedHasNoLatency(t *testing.T) {
	m := New()
	m.Result(0, loadgen.OutcomeDropped)
	m.Result(time.Second, loadgen.OutcomePass)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{`loadctl_requests_total{outcome="dropped"} 1`, "loadctl_request_duration_seconds_count 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}
