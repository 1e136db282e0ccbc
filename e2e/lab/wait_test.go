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

func TestClosedLoopCountsOnlyTheWindow(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(20 * time.Millisecond)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	res := ClosedLoop(context.Background(), srv.URL, BenchBody(0, 0), 4, 100*time.Millisecond, 300*time.Millisecond)
	if res.Failed != 0 || res.OK == 0 || res.OK >= res.Started {
		t.Fatalf("got %+v; want OK inside the window only, fewer than all started", res)
	}
}
