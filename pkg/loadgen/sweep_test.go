package loadgen

import (
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// delayServer answers {"ok":true} after d, or earlier if the client leaves.
func delayServer(t *testing.T, d time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func okTarget(urls ...string) *Target {
	c, _ := ParseFieldCheck("ok==true")
	return &Target{URLs: urls, Body: []byte(`{"sleep_ms":1}`), ContentType: "application/json",
		Checks: Checks{Status: []int{200}, Fields: []FieldCheck{c}}, Client: NewClient(5*time.Second, 64)}
}

func runSweep(t *testing.T, s *Sweep) *Result {
	t.Helper()
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestClosedLoopLatencyMatchesServerDelay(t *testing.T) {
	const delay = 20 * time.Millisecond
	srv := delayServer(t, delay)
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{2}), Step: 1500 * time.Millisecond, Warmup: 200 * time.Millisecond},
		Target: okTarget(srv.URL),
	})
	f := res.Steps[0].Figures
	if f.PassRate != 1 || f.Passed == 0 {
		t.Fatalf("pass rate %v over %d requests, errors %v", f.PassRate, f.Requests, f.Errors)
	}
	if got := time.Duration(f.Latency.P50 * float64(time.Second)); (got - delay).Abs() > 2*time.Millisecond {
		t.Errorf("p50 %v, want within 2ms of the server's %v", got, delay)
	}
	if f.MeanInFlight <= 0 || f.MeanInFlight > 2 {
		t.Errorf("mean in flight %v with 2 VUs", f.MeanInFlight)
	}
	if res.Interrupted || res.Total.Passed != f.Passed {
		t.Errorf("interrupted %v, total passed %d vs step %d", res.Interrupted, res.Total.Passed, f.Passed)
	}
}

// kindsServer answers by path: /ok passes, /status is a 500, /check fails
// the body check and /slow outlives the client timeout. Hits are counted
// per path to show the round robin.
type kindsServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newKindsServer(t *testing.T) *kindsServer {
	ks := &kindsServer{hits: map[string]int{}}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.mu.Lock()
		ks.hits[r.URL.Path]++
		ks.mu.Unlock()
		io.Copy(io.Discard, r.Body) // so the server notices a client that gives up
		switch r.URL.Path {
		case "/status":
			w.WriteHeader(http.StatusInternalServerError)
		case "/check":
			w.Write([]byte(`{"ok":false}`))
		case "/slow":
			select {
			case <-time.After(10 * time.Second):
			case <-r.Context().Done():
			}
		default:
			w.Write([]byte(`{"ok":true}`))
		}
	}))
	t.Cleanup(ks.Close)
	return ks
}

func TestOutcomesByKindAndRoundRobin(t *testing.T) {
	ks := newKindsServer(t)
	tgt := okTarget(ks.URL+"/ok", ks.URL+"/status", ks.URL+"/check", ks.URL+"/slow")
	tgt.Client = NewClient(200*time.Millisecond, 4) // far above a local answer, far below /slow
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{1}), Step: time.Second},
		Target: tgt,
	})
	f := res.Steps[0].Figures
	counts := []int64{f.Passed, f.Errors["status"], f.Errors["check"], f.Errors["timeout"]}
	lo, hi := counts[0], counts[0]
	for _, c := range counts {
		lo, hi = min(lo, c), max(hi, c)
	}
	// One VU walks the URLs in order, so any window holds each kind
	// equally often, give or take one.
	if lo == 0 || hi-lo > 1 {
		t.Errorf("pass/status/check/timeout = %v, want equal within one", counts)
	}
	if f.Errors["connection"] != 0 || f.Errors["dropped"] != 0 {
		t.Errorf("unexpected errors %v", f.Errors)
	}
	ex := f.ErrorExamples
	if !strings.Contains(ex["status"], "500") || !strings.Contains(ex["check"], `ok==true failed on body "{\"ok\":false}"`) ||
		ex["timeout"] == "" || len(ex) != 3 {
		t.Errorf("error examples %q", ex)
	}
	if math.Abs(f.PassRate+f.ErrorRate-1) > 1e-9 || f.ErrorRate < 0.7 {
		t.Errorf("pass %v error %v", f.PassRate, f.ErrorRate)
	}
	if f.Latency.Count != f.Passed || f.LatencyAll.Count != f.Requests {
		t.Errorf("latency counts %d/%d for %d passed of %d", f.Latency.Count, f.LatencyAll.Count, f.Passed, f.Requests)
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if d := ks.hits["/ok"] - ks.hits["/slow"]; d < 0 || d > 1 {
		t.Errorf("hits %v: round robin broken", ks.hits)
	}
}

func TestConnectionRefusedIsCountedNotFatal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{2}), Step: 300 * time.Millisecond},
		Target: okTarget("http://u:P@" + addr + "/webhook/bench?token=T"),
	})
	f := res.Steps[0].Figures
	if f.Passed != 0 || f.Errors["connection"] == 0 || f.Errors["connection"] != f.Requests {
		t.Errorf("figures %+v", f)
	}
	if f.Latency.Count != 0 || f.Latency.P95 != 0 {
		t.Errorf("failed requests leaked into passing latency: %+v", f.Latency)
	}
	// The client's error quotes the URL: the example hides its password
	// and query value, and the total keeps the same text.
	want := `Post "http://u:xxxxx@` + addr + `/webhook/bench?token=xxxxx": dial tcp ` + addr + ": connect: connection refused"
	if ex := f.ErrorExamples["connection"]; ex != want || res.Total.ErrorExamples["connection"] != want {
		t.Errorf("connection example %q, want %q", ex, want)
	}
}

// stallServer serves one request at a time, like a single slot; request
// number stallAt holds the slot for stall, so every arrival behind it
// queues. A closed loop would hide that queue (coordinated omission).
func stallServer(t *testing.T, stallAt int64, stall time.Duration) *httptest.Server {
	var mu sync.Mutex
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if n.Add(1) == stallAt {
			time.Sleep(stall)
		}
		mu.Unlock()
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenLoopCountsQueueingTime(t *testing.T) {
	const stall = 500 * time.Millisecond
	srv := stallServer(t, 10, stall)
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Open, Steps: OpenSteps([]float64{50}), Step: 1500 * time.Millisecond, MaxInFlight: 200},
		Target: okTarget(srv.URL),
	})
	f := res.Steps[0].Figures
	if f.PassRate != 1 {
		t.Fatalf("pass rate %v, errors %v", f.PassRate, f.Errors)
	}
	maxLat := time.Duration(f.Latency.Max * float64(time.Second))
	p90 := time.Duration(f.Latency.P90 * float64(time.Second))
	// About 25 requests were due during the stall, each waiting for its
	// end: the top decile carries that queueing time.
	if maxLat < stall || p90 < stall/2 {
		t.Errorf("max %v p90 %v: queueing behind a %v stall is missing", maxLat, p90, stall)
	}
}

func TestOpenLoopSendsExactlyTheSchedule(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Open, Steps: OpenSteps([]float64{20, 40}), Step: 500 * time.Millisecond, MaxInFlight: 100},
		Target: okTarget(srv.URL),
	})
	// 20/s and 40/s for 0.5 s each: due times i/rate < 0.5 s give 10 + 20.
	if got := hits.Load(); got != 30 {
		t.Errorf("server saw %d requests, want 30", got)
	}
	if len(res.Steps) != 2 || res.Steps[1].Load.Rate != 40 {
		t.Errorf("steps %+v", res.Steps)
	}
}

func TestOpenLoopDropsBeyondMaxInFlight(t *testing.T) {
	var cur, peak atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(200 * time.Millisecond)
		cur.Add(-1)
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	res := runSweep(t, &Sweep{
		Plan:   Plan{Model: Open, Steps: OpenSteps([]float64{50}), Step: time.Second, MaxInFlight: 2},
		Target: okTarget(srv.URL),
	})
	f := res.Steps[0].Figures
	// Two slots held 200 ms each serve at most 12 of the 50 due starts.
	if f.Errors["dropped"] < 38 || peak.Load() > 2 {
		t.Errorf("dropped %d, server peak concurrency %d", f.Errors["dropped"], peak.Load())
	}
	if f.LatencyAll.Count+f.Errors["dropped"] != f.Requests {
		t.Errorf("dropped starts got a latency: %+v", f)
	}
}

// collapseServer has two slots of 50 ms, but once six or more requests
// are waiting a slot takes 150 ms: past that load throughput falls, as a
// saturated n8n does. The steps differ by far more than the 5 % rules, so
// scheduling noise cannot flip the outcome.
func collapseServer(t *testing.T) *httptest.Server {
	sem := make(chan struct{}, 2)
	var waiting atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := 50 * time.Millisecond
		if waiting.Add(1) >= 6 {
			d = 150 * time.Millisecond
		}
		sem <- struct{}{}
		time.Sleep(d)
		<-sem
		waiting.Add(-1)
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStopAtKneeAndKnee(t *testing.T) {
	srv := collapseServer(t)
	var seen []int
	res := runSweep(t, &Sweep{
		Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1, 4, 8, 16}), Step: time.Second,
			Warmup: 300 * time.Millisecond, StopAtKnee: true},
		Target: okTarget(srv.URL),
		OnStep: func(s StepResult) { seen = append(seen, s.Load.VUs) },
	})
	// 1 VU: about 20/s; 4 VU: the 2-slot ceiling of 40/s; 8 VU: about
	// 13/s. The sweep stops after 8 VU and the knee is the 4-VU step.
	if len(res.Steps) != 3 || len(seen) != 3 {
		t.Fatalf("ran %v, want 1,4,8 then stop; steps %+v", seen, res.Steps)
	}
	if res.Knee == nil || res.Knee.Load.VUs != 4 {
		t.Fatalf("knee %+v, want the 4-VU step; steps %+v", res.Knee, res.Steps)
	}
	if res.Knee.MeasuredCeiling != res.Steps[1].Figures.Throughput {
		t.Errorf("measured ceiling %v is not the knee's throughput", res.Knee.MeasuredCeiling)
	}
}

func TestCancelEndsSweep(t *testing.T) {
	srv := delayServer(t, 20*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sweep{
		Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{2, 4}), Step: time.Hour},
		Target: okTarget(srv.URL),
		OnProgress: func(p Progress) {
			if p.Figures.Passed > 0 {
				cancel()
			}
		},
		ProgressEvery: 50 * time.Millisecond,
	}
	res, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Steps) != 1 || res.Steps[0].Figures.Passed == 0 {
		t.Errorf("interrupted %v, steps %d", res.Interrupted, len(res.Steps))
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	good := okTarget("http://127.0.0.1:1/x")
	for name, s := range map[string]*Sweep{
		"no steps":    {Plan: Plan{Model: Closed, Step: time.Second}, Target: good},
		"zero step":   {Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1})}, Target: good},
		"bad model":   {Plan: Plan{Model: "ramp", Steps: ClosedSteps([]int{1}), Step: time.Second}, Target: good},
		"open no cap": {Plan: Plan{Model: Open, Steps: OpenSteps([]float64{5}), Step: time.Second}, Target: good},
		"bad url":     {Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1}), Step: time.Second}, Target: okTarget("ftp://x")},
		"bad method":  {Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1}), Step: time.Second}, Target: &Target{URLs: []string{"http://127.0.0.1:1/"}, Method: "GE\tT", Client: NewClient(time.Second, 1)}},
		"no timeout":  {Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1}), Step: time.Second}, Target: &Target{URLs: []string{"http://127.0.0.1:1/"}, Client: &http.Client{}}},
	} {
		if _, err := s.Run(context.Background()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
