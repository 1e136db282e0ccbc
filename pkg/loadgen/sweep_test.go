package loadgen

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// delayHandler answers {"ok":true} after d, or earlier if the client
// leaves.
func delayHandler(d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}

// delayServer serves delayHandler on loopback.
func delayServer(t *testing.T, d time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(delayHandler(d))
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

// On the fake clock every request takes exactly the server's delay, so
// p50 is the delay to HdrHistogram's resolution (3 digits), and two VUs
// keep two requests in flight except at the instants one is replaced.
func TestClosedLoopLatencyMatchesServerDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 20 * time.Millisecond
		res := runSweep(t, &Sweep{
			Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{2}), Step: 1500 * time.Millisecond, Warmup: 200 * time.Millisecond},
			Target: fakeTarget(t, delayHandler(delay), 5*time.Second),
		})
		f := res.Steps[0].Figures
		if f.PassRate != 1 || f.Passed != 2*1500/20 {
			t.Fatalf("pass rate %v, %d passed of %d, want 150; errors %v", f.PassRate, f.Passed, f.Requests, f.Errors)
		}
		if got := time.Duration(f.Latency.P50 * float64(time.Second)); got < delay || got > delay+delay/1000 {
			t.Errorf("p50 %v, want %v to 0.1%%", got, delay)
		}
		if f.MeanInFlight < 1.5 || f.MeanInFlight > 2 {
			t.Errorf("mean in flight %v with 2 VUs", f.MeanInFlight)
		}
		if f.Basis != BasisVUCycles || math.Abs(f.Throughput-100) > 0.5 {
			t.Errorf("step throughput %.2f/s by %q, want 100/s by whole VU cycles", f.Throughput, f.Basis)
		}
		if res.Total.Basis != BasisWindow {
			t.Errorf("total's basis %q, want %q: cycles are a step's", res.Total.Basis, BasisWindow)
		}
		if res.Interrupted || res.Total.Passed != f.Passed {
			t.Errorf("interrupted %v, total passed %d vs step %d", res.Interrupted, res.Total.Passed, f.Passed)
		}
	})
}

// kindsHandler answers by path: /ok passes, /status is a 500, /check
// fails the body check and /slow outlives the client timeout. Hits are
// counted per path to show the round robin.
type kindsHandler struct {
	mu   sync.Mutex
	hits map[string]int
}

func (ks *kindsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ks.mu.Lock()
	ks.hits[r.URL.Path]++
	ks.mu.Unlock()
	_, _ = io.Copy(io.Discard, r.Body) // so the server notices a client that gives up
	switch r.URL.Path {
	case "/status":
		w.WriteHeader(http.StatusInternalServerError)
	case "/check":
		_, _ = w.Write([]byte(`{"ok":false}`))
	case "/slow":
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	default:
		_, _ = w.Write([]byte(`{"ok":true}`))
	}
}

// One VU walks /ok, /status, /check, /slow in order; on the fake clock
// the first three answer at once and /slow times out after 200 ms, so a
// 1 s window holds five of each fast kind and four timeouts.
func TestOutcomesByKindAndRoundRobin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ks := &kindsHandler{hits: map[string]int{}}
		tgt := fakeTarget(t, ks, 200*time.Millisecond, "/ok", "/status", "/check", "/slow")
		res := runSweep(t, &Sweep{
			Plan:   Plan{Model: Closed, Steps: ClosedSteps([]int{1}), Step: time.Second},
			Target: tgt,
		})
		f := res.Steps[0].Figures
		counts := []int64{f.Passed, f.Errors["status"], f.Errors["check"], f.Errors["timeout"]}
		if !slices.Equal(counts, []int64{5, 5, 5, 4}) {
			t.Errorf("pass/status/check/timeout = %v, want [5 5 5 4]", counts)
		}
		if f.Errors["connection"] != 0 || f.Errors["dropped"] != 0 {
			t.Errorf("unexpected errors %v", f.Errors)
		}
		ex := f.ErrorExamples
		if !strings.Contains(ex["status"], "500") || !strings.Contains(ex["check"], `ok==true failed on body "{\"ok\":false}"`) ||
			ex["timeout"] == "" || len(ex) != 3 {
			t.Errorf("error examples %q", ex)
		}
		if math.Abs(f.PassRate+f.ErrorRate-1) > 1e-9 || f.PassRate != 5.0/19 {
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
	})
}

func TestConnectionRefusedIsCountedNotFatal(t *testing.T) {
	addr := testtool.ClosedAddr(t)
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

// stallHandler serves one request at a time, like a single slot; request
// number stallAt holds the slot for stall, so every arrival behind it
// queues. A closed loop would hide that queue (coordinated omission). The
// slot is a channel: in a synctest bubble, a goroutine waiting on a mutex
// would keep the fake clock from moving.
func stallHandler(stallAt int64, stall time.Duration) http.Handler {
	slot := make(chan struct{}, 1)
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		slot <- struct{}{}
		if n.Add(1) == stallAt {
			time.Sleep(stall)
		}
		<-slot
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}

// At 50/s, request 10 stalls the slot 500 ms: the 25 requests due in that
// time each wait for its end, from 500 ms down to 20 ms, and the top
// decile of the 75 carries that queueing time.
func TestOpenLoopCountsQueueingTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const stall = 500 * time.Millisecond
		res := runSweep(t, &Sweep{
			Plan:   Plan{Model: Open, Steps: OpenSteps([]float64{50}), Step: 1500 * time.Millisecond, MaxInFlight: 200},
			Target: fakeTarget(t, stallHandler(10, stall), 5*time.Second),
		})
		f := res.Steps[0].Figures
		if f.PassRate != 1 || f.Passed != 75 {
			t.Fatalf("pass rate %v of %d, errors %v", f.PassRate, f.Requests, f.Errors)
		}
		maxLat := time.Duration(f.Latency.Max * float64(time.Second))
		p90 := time.Duration(f.Latency.P90 * float64(time.Second))
		if maxLat < stall || maxLat > stall+stall/1000 || p90 < stall/2 {
			t.Errorf("max %v p90 %v: queueing behind a %v stall is missing", maxLat, p90, stall)
		}
	})
}

// 20/s and 40/s for 0.5 s each: due times i/rate < 0.5 s give 10 + 20
// requests, and on the fake clock each reaches the server before the
// sweep ends (on loopback, the last could be cancelled on its way).
func TestOpenLoopSendsExactlyTheSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var hits atomic.Int64
		res := runSweep(t, &Sweep{
			Plan: Plan{Model: Open, Steps: OpenSteps([]float64{20, 40}), Step: 500 * time.Millisecond, MaxInFlight: 100},
			Target: fakeTarget(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				_, _ = w.Write([]byte(`{"ok":true}`))
			}), 5*time.Second),
		})
		if got := hits.Load(); got != 30 || res.Total.Passed != 30 {
			t.Errorf("server saw %d requests, %d passed, want 30", got, res.Total.Passed)
		}
		if len(res.Steps) != 2 || res.Steps[1].Load.Rate != 40 {
			t.Errorf("steps %+v", res.Steps)
		}
	})
}

// At 50/s (one due every 20 ms) with two slots held 210 ms each, the
// slots are taken at 0, 20, 220, 240, 440, 460, 660, 680, 880 and 900 ms
// and every other start is dropped: 40 dropped; the 8 requests that end
// before 1 s pass, the last two are cut by the sweep's end.
func TestOpenLoopDropsBeyondMaxInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cur, peak atomic.Int64
		res := runSweep(t, &Sweep{
			Plan: Plan{Model: Open, Steps: OpenSteps([]float64{50}), Step: time.Second, MaxInFlight: 2},
			Target: fakeTarget(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n := cur.Add(1)
				for p := peak.Load(); n > p; p = peak.Load() {
					if peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(210 * time.Millisecond)
				cur.Add(-1)
				_, _ = w.Write([]byte(`{"ok":true}`))
			}), 5*time.Second),
		})
		f := res.Steps[0].Figures
		if f.Errors["dropped"] != 40 || f.Passed != 8 || f.Requests != 48 || peak.Load() != 2 {
			t.Errorf("dropped %d, passed %d of %d, server peak concurrency %d", f.Errors["dropped"], f.Passed, f.Requests, peak.Load())
		}
		if f.LatencyAll.Count+f.Errors["dropped"] != f.Requests {
			t.Errorf("dropped starts got a latency: %+v", f)
		}
	})
}

// collapseHandler has two slots of 50 ms, but once six or more requests
// are waiting a slot takes 150 ms: past that load throughput falls, as a
// saturated n8n does.
func collapseHandler() http.Handler {
	sem := make(chan struct{}, 2)
	var waiting atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		d := 50 * time.Millisecond
		if waiting.Add(1) >= 6 {
			d = 150 * time.Millisecond
		}
		sem <- struct{}{}
		time.Sleep(d)
		<-sem
		waiting.Add(-1)
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
}

// On the fake clock: 1 VU passes 20/s; 4 VUs the 2-slot ceiling of 40/s;
// 8 VUs about 13/s. The sweep stops after 8 VUs and the knee is the 4-VU
// step.
func TestStopAtKneeAndKnee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen []int
		res := runSweep(t, &Sweep{
			Plan: Plan{Model: Closed, Steps: ClosedSteps([]int{1, 4, 8, 16}), Step: time.Second,
				Warmup: 300 * time.Millisecond, StopAtKnee: true},
			Target: fakeTarget(t, collapseHandler(), 5*time.Second),
			OnStep: func(s StepResult) { seen = append(seen, s.Load.VUs) },
		})
		if len(res.Steps) != 3 || len(seen) != 3 {
			t.Fatalf("ran %v, want 1,4,8 then stop; steps %+v", seen, res.Steps)
		}
		for i, want := range []float64{20, 40, 40.0 / 3} {
			if got := res.Steps[i].Figures.Throughput; math.Abs(got-want) > 2 {
				t.Errorf("step %d: %.2f/s, want %.2f/s", i+1, got, want)
			}
		}
		if res.Knee == nil || res.Knee.Load.VUs != 4 {
			t.Fatalf("knee %+v, want the 4-VU step; steps %+v", res.Knee, res.Steps)
		}
		if res.Knee.MeasuredCeiling != res.Steps[1].Figures.Throughput {
			t.Errorf("measured ceiling %v is not the knee's throughput", res.Knee.MeasuredCeiling)
		}
	})
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
