package collector

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// waiting is how many requests wait on the gather in flight.
func (s *sharedGather) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flight == nil {
		return 0
	}
	return s.flight.waiters
}

// waitUntil polls cond (bounded: 10 s).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func metricsServer(t *testing.T, c *Collector) *httptest.Server {
	srv := httptest.NewServer(c.MetricsHandler(prometheus.NewRegistry(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	t.Cleanup(srv.Close)
	return srv
}

func fetch(t *testing.T, req *http.Request) (int, string) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// 50 concurrent scrapes arriving while a gather runs share it: the
// platform is asked once, and every scrape gets the same report.
func TestConcurrentScrapesShareOneGather(t *testing.T) {
	p := newCountingFakePlatform()
	defer p.releaseAll()
	c := New(Config{Platform: p, PlatformName: "docker", ScrapeTimeout: time.Minute, Timeout: time.Minute})
	srv := metricsServer(t, c)
	const n = 50
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			if code, body := fetch(t, req); code == http.StatusOK {
				bodies[i] = body
			}
		})
	}
	<-p.started
	waitUntil(t, "all scrapes to join the gather", func() bool { return c.shared.waiting() == n })
	p.releaseAll()
	wg.Wait()
	if got := p.calls.Load(); got != 1 {
		t.Fatalf("%d concurrent scrapes made %d gathers, want 1", n, got)
	}
	for i, b := range bodies {
		if !strings.Contains(b, `n8n_exporter_source_up{source="docker"} 1`) || b != bodies[0] {
			t.Fatalf("scrape %d got another report:\n%s\nvs\n%s", i, b, bodies[0])
		}
	}
}

// A client that gives up cancels its gather when nobody else waits on it;
// the next scrape starts a fresh gather.
func TestAbandonedScrapeCancelsItsGather(t *testing.T) {
	p := newCountingFakePlatform()
	defer p.releaseAll()
	c := New(Config{Platform: p, PlatformName: "docker", ScrapeTimeout: time.Minute, Timeout: time.Minute})
	srv := metricsServer(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	gctx := <-p.started
	cancel()
	select {
	case <-gctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the gather outlived its only client (scrape timeout 1 min)")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	go func() { <-p.started; p.releaseAll() }()
	if code, body := fetch(t, req); code != http.StatusOK || !strings.Contains(body, `n8n_exporter_source_up{source="docker"} 1`) {
		t.Fatalf("next scrape: %d\n%s", code, body)
	}
	if got := p.calls.Load(); got != 2 {
		t.Fatalf("%d gathers, want 2: the next scrape must not join a cancelled one", got)
	}
}

// When one of two waiting scrapes gives up, the gather goes on for the
// other.
func TestGatherContinuesForOtherWaiters(t *testing.T) {
	p := newCountingFakePlatform()
	defer p.releaseAll()
	c := New(Config{Platform: p, PlatformName: "docker", ScrapeTimeout: time.Minute, Timeout: time.Minute})
	ctx1, cancel1 := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := c.Scrape(ctx1); first <- err }()
	gctx := <-p.started
	second := make(chan *Report, 1)
	go func() { r, _ := c.Scrape(context.Background()); second <- r }()
	waitUntil(t, "the second scrape to join", func() bool { return c.shared.waiting() == 2 })
	cancel1()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first scrape: %v", err)
	}
	if gctx.Err() != nil {
		t.Fatal("the gather was cancelled while another scrape still waited")
	}
	p.releaseAll()
	r := <-second
	if r == nil || len(r.Sources) == 0 || !r.Sources[0].Up || p.calls.Load() != 1 {
		t.Fatalf("second scrape: %+v, %d gathers", r, p.calls.Load())
	}
	if c.Last() != r {
		t.Error("the report served is not the last report")
	}
}

// Prometheus' scrape-timeout header bounds the gather well below the
// configured cap: the platform's context ends, and the scrape gets the
// cut-short report with the platform marked down.
func TestScrapeTimeoutHeaderBoundsGather(t *testing.T) {
	p := newCountingFakePlatform()
	defer p.releaseAll()
	c := New(Config{Platform: p, PlatformName: "docker", ScrapeTimeout: time.Minute, Timeout: time.Minute, ScrapeTimeoutOffset: 500 * time.Millisecond})
	srv := metricsServer(t, c)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set(ScrapeTimeoutHeader, "1.5")
	start := time.Now()
	code, body := fetch(t, req)
	gctx := <-p.started
	if gctx.Err() == nil {
		t.Fatal("the gather's context is still live after the scrape answered")
	}
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Fatalf("answered after %v: the 1.5 s header did not bound the one-minute cap", elapsed)
	}
	if code != http.StatusOK || !strings.Contains(body, `n8n_exporter_source_up{source="docker"} 0`) {
		t.Fatalf("%d, want 200 with the platform down:\n%s", code, body)
	}
	req.Header.Set(ScrapeTimeoutHeader, "soon")
	if code, body := fetch(t, req); code != http.StatusBadRequest || !strings.Contains(body, ScrapeTimeoutHeader) {
		t.Fatalf("bad header: %d %s", code, body)
	}
}

func TestScrapeTimeout(t *testing.T) {
	const offset, limit = 500 * time.Millisecond, 10 * time.Second
	cases := map[string]time.Duration{"": limit, "2": 1500 * time.Millisecond, "0.4": 200 * time.Millisecond,
		"60": limit, "1e300": limit, "10.5": limit, "10.4": 9900 * time.Millisecond}
	for header, want := range cases {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if header != "" {
			req.Header.Set(ScrapeTimeoutHeader, header)
		}
		if got, err := ScrapeTimeout(req, offset, limit); err != nil || got != want {
			t.Errorf("header %q: %v %v, want %v", header, got, err, want)
		}
	}
	for _, bad := range []string{"x", "-1", "0", "NaN", "+Inf"} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set(ScrapeTimeoutHeader, bad)
		if _, err := ScrapeTimeout(req, offset, limit); err == nil {
			t.Errorf("header %q accepted", bad)
		}
	}
}

// / and /verdict render the last report and its age; they do not gather
// while one exists.
func TestPagesRenderTheLastReport(t *testing.T) {
	p := newCountingFakePlatform()
	p.releaseAll()
	c := New(Config{Platform: p, PlatformName: "docker", ScrapeTimeout: time.Minute, Timeout: time.Minute})
	verdict := httptest.NewServer(c.VerdictHandler())
	defer verdict.Close()
	landing := httptest.NewServer(c.LandingHandler())
	defer landing.Close()
	for i := range 3 {
		for _, u := range []string{verdict.URL, landing.URL} {
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			if code, body := fetch(t, req); code != http.StatusOK || !strings.Contains(body, "report gathered at") {
				t.Fatalf("page %d: %d\n%s", i, code, body)
			}
		}
	}
	if got := p.calls.Load(); got != 1 {
		t.Fatalf("6 page views made %d gathers, want 1 (the first, with no report yet)", got)
	}
}
