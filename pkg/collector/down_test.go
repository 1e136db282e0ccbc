package collector

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Docker unreachable (a socket path where nothing listens) while Redis is
// up: docker is marked down, the queue is still served, and the scrape
// answers 200.
func TestDockerDownRedisUp(t *testing.T) {
	rd := queuetest.Start(t)
	rd.Client.LPush(context.Background(), "bull:jobs:wait", "1", "2")
	dc, err := dockerstats.NewClient("unix://"+filepath.Join(t.TempDir(), "no-docker.sock"), "", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(Config{Platform: dc, PlatformName: "docker", Memory: []MemorySource{{Name: "stats", Reader: dc}},
		Queue: queue.NewReader(rd.Client, "bull")}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	for _, want := range []string{`n8n_exporter_source_up{source="docker"} 0`, `n8n_exporter_source_up{source="redis"} 1`, `n8n_queue_jobs{state="waiting"} 2`} {
		if resp.StatusCode != 200 || !strings.Contains(body, want) {
			t.Errorf("status %d, body lacks %q:\n%s", resp.StatusCode, want, body)
		}
	}
	if strings.Contains(body, "n8n_worker_") {
		t.Errorf("no workers known, yet worker metrics:\n%s", body)
	}
}

// fakeN8nMetrics serves an exact histogram sequence (two scrapes) that a
// real n8n would only produce under a timed load.
func TestN8nDurationsDelta(t *testing.T) {
	bodies := []string{hist(10, 10.5), hist(14, 18.5), hist(14, 18.5)}
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, bodies[min(i, len(bodies)-1)])
		i++
	}))
	defer srv.Close()
	d := n8nDurations{client: srv.Client()}
	wants := []float64{1.05, 2.0, 2.0} // all-time mean, then the delta's mean, then held
	for _, want := range wants {
		got, _, err := d.read(context.Background(), srv.URL, "", time.Time{}, time.Now())
		if err != nil || got.Seconds() < want-1e-9 || got.Seconds() > want+1e-9 {
			t.Fatalf("got %v err %v, want %.2f s", got, err, want)
		}
	}
	if _, _, err := d.read(context.Background(), srv.URL+"/x\x00", "", time.Time{}, time.Now()); err == nil {
		t.Fatal("bad URL accepted")
	}
}

func hist(count int, sum float64) string {
	return "# TYPE n8n_workflow_execution_duration_seconds histogram\n" +
		"n8n_workflow_execution_duration_seconds_bucket{le=\"+Inf\"} " + itoa(count) + "\n" +
		"n8n_workflow_execution_duration_seconds_sum " + ftoa(sum) + "\n" +
		"n8n_workflow_execution_duration_seconds_count " + itoa(count) + "\n"
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
