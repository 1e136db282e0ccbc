package lab

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCallBenchChecksStatusAndBody(t *testing.T) {
	answers := []struct {
		status int
		body   string
		ok     bool
	}{
		{200, `{"ok":true,"held_mb":0}`, true},
		{200, `{"ok":false}`, false},
		{200, `not json`, false},
		{404, `{"ok":true}`, false},
	}
	for _, a := range answers {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(a.status)
			_, _ = w.Write([]byte(a.body))
		}))
		err := CallBench(context.Background(), srv.Client(), srv.URL, BenchBody(1, 0))
		srv.Close()
		if (err == nil) != a.ok {
			t.Errorf("%d %s: err %v", a.status, a.body, err)
		}
	}
}

func TestUntilRetriesThenGivesUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	check := func(ctx context.Context) error { return GetOK(ctx, srv.Client(), srv.URL) }
	if err := Until(context.Background(), 10*time.Second, 10*time.Millisecond, check); err != nil || calls.Load() != 3 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
	never := func(ctx context.Context) error { return GetOK(ctx, srv.Client(), srv.URL+"/missing") }
	srv.Config.Handler = http.NotFoundHandler()
	err := Until(context.Background(), 500*time.Millisecond, 10*time.Millisecond, never)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("want the last error on timeout, got %v", err)
	}
	// An attempt the deadline cuts does not hide the answer before it.
	var tries int
	hangs := func(ctx context.Context) error {
		if tries++; tries == 1 {
			return errors.New("HTTP 404")
		}
		<-ctx.Done()
		return ctx.Err()
	}
	if err := Until(context.Background(), 200*time.Millisecond, time.Millisecond, hangs); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("a cut attempt: got %v, want the 404 before it", err)
	}
}

// A hung attempt does not hold back the next: the second succeeds while
// the first still hangs, and UntilAny returns then, cancelling the first
// (which Until would have waited 10 s for, to its own deadline).
func TestUntilAnyOverlapsAHungAttempt(t *testing.T) {
	var tries atomic.Int32
	firstEnded := make(chan error, 1)
	check := func(ctx context.Context) error {
		if tries.Add(1) == 1 {
			<-ctx.Done()
			firstEnded <- ctx.Err()
			return ctx.Err()
		}
		return nil
	}
	if err := UntilAny(context.Background(), time.Minute, 10*time.Millisecond, check); err != nil {
		t.Fatal(err)
	}
	if err := <-firstEnded; !errors.Is(err, context.Canceled) {
		t.Errorf("the hung attempt ended with %v, want cancelled once another succeeded", err)
	}
	hangs := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	if err := UntilAny(context.Background(), 100*time.Millisecond, 10*time.Millisecond, hangs); err == nil || !strings.Contains(err.Error(), "not ready after 100ms") {
		t.Errorf("every attempt hangs: got %v, want not ready", err)
	}
}

// ClosedLoop counts through loadgen: a server that always passes gives
// whole-cycle counts and no failure; one that fails a request gives the
// window's count, the failure's kind and when it first happened; a
// cancelled run says it ended early.
func TestClosedLoopCountsThroughLoadgen(t *testing.T) {
	var n atomic.Int64
	var failOne atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(20 * time.Millisecond)
		if n.Add(1) == 20 && failOne.Load() {
			_, _ = w.Write([]byte(`{"ok":false}`))
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	res := ClosedLoop(context.Background(), srv.URL, BenchBody(0, 0), 4, 100*time.Millisecond, 300*time.Millisecond)
	if res.Failed != 0 || res.OK == 0 || res.Basis != "vu_cycles" || res.PerSec <= 0 || !res.FirstFailed.IsZero() || res.Mean < 20*time.Millisecond {
		t.Fatalf("all passing: got %+v; want OK > 0 counted in vu_cycles, none failed, mean latency at least 20ms", res)
	}
	failOne.Store(true)
	n.Store(0)
	before := time.Now()
	res = ClosedLoop(context.Background(), srv.URL, BenchBody(0, 0), 4, 0, 300*time.Millisecond)
	if res.Failed != 1 || res.Basis != "window" || res.FirstFailed.Before(before) || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), "check") {
		t.Fatalf("one failing: got %+v; want 1 failed (a check), counted over the window, with its time", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res = ClosedLoop(ctx, srv.URL, BenchBody(0, 0), 2, 0, time.Second); len(res.Errors) == 0 || res.OK != 0 {
		t.Fatalf("cancelled: got %+v; want no count and why", res)
	}
}
