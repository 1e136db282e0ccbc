package collector

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// n8n's histogram is read in the background: repeated scrapes (one after
// another, and concurrent) return identical service-time figures and never
// read n8n themselves, so scraping does not advance the delta.
func TestRepeatedScrapesSeeTheSameN8nFigures(t *testing.T) {
	var hits atomic.Int32
	bodies := []string{hist(10, 10.5), hist(20, 30.5), hist(30, 60.5), hist(40, 100.5)}
	n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, bodies[min(int(hits.Add(1))-1, len(bodies)-1)])
	}))
	defer n8n.Close()
	c := New(Config{N8nMetricsURL: n8n.URL})
	c.sampleN8n(context.Background(), time.Now()) // the all-time mean: 1.05 s
	c.sampleN8n(context.Background(), time.Now()) // the delta: 2 s
	srv := metricsServer(t, c)
	const line = `n8n_service_time_seconds{source="n8n",stage="job"} 2` + "\n"
	scrape := func() string {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		_, body := fetch(t, req)
		return body
	}
	for i := range 5 {
		if body := scrape(); !strings.Contains(body, line) || !strings.Contains(body, `n8n_exporter_source_up{source="n8n"} 1`) {
			t.Fatalf("scrape %d lacks %q:\n%s", i+1, line, body)
		}
	}
	done := make(chan string, 10)
	for range 10 {
		go func() { done <- scrape() }()
	}
	for range 10 {
		if body := <-done; !strings.Contains(body, line) {
			t.Fatalf("a concurrent scrape lacks %q:\n%s", line, body)
		}
	}
	if got := hits.Load(); got != 2 {
		t.Fatalf("n8n was read %d times, want 2 (the sampler's reads only)", got)
	}
	c.sampleN8n(context.Background(), time.Now()) // 10 more in 30 s: 3 s
	if body := scrape(); !strings.Contains(body, `n8n_service_time_seconds{source="n8n",stage="job"} 3`+"\n") {
		t.Fatalf("after the next read:\n%s", body)
	}
}

// Run reads on its own interval, and at once when the discovery finds
// main at a new URL.
func TestN8nSamplerRunsInTheBackground(t *testing.T) {
	var hits atomic.Int32
	n8n := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, hist(10, 10.5))
	}))
	defer n8n.Close()
	c := New(Config{N8nSampleInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { c.Run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	c.n8n.point(n8n.URL)
	if c.n8n.read(n8n.URL) != nil {
		t.Fatal("a figure before any read")
	}
	waitUntil(t, "a read of the new URL", func() bool { return c.n8n.read(n8n.URL) != nil })
	if got := hits.Load(); got != 1 {
		t.Fatalf("%d reads, want 1", got)
	}
}
