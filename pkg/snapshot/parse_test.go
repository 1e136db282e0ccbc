package snapshot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

func parseFile(t *testing.T, path string) *Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseWorkersAndCluster(t *testing.T) {
	s := parseFile(t, "testdata/full.prom")
	if len(s.Workers) != 2 {
		t.Fatalf("workers %+v", s.Workers)
	}
	w1, w2 := s.Workers[0], s.Workers[1]
	want1 := Worker{Name: "n8n-lab-worker-1", Concurrency: 15,
		Runners:  []Runner{{Name: "n8n-lab-runner-1-1", Worker: "n8n-lab-worker-1", Limit: 5}},
		Capacity: Sample{5, true}, Effective: Sample{5, true}, Bottleneck: "runner", Ceiling: Sample{4.716981132075472, true}}
	if !reflect.DeepEqual(w1, want1) {
		t.Errorf("worker 1 = %+v\nwant %+v", w1, want1)
	}
	if w2.Runners != nil || w2.Capacity != (Sample{0, true}) || w2.Bottleneck != "" {
		t.Errorf("worker 2 (no runner) = %+v", w2)
	}
	if want := []Runner{{Name: "n8n-lab-runner-9", Limit: 20}}; !reflect.DeepEqual(s.Unpaired, want) {
		t.Errorf("unpaired %+v, want %+v", s.Unpaired, want)
	}
	want := Cluster{Effective: Sample{5, true}, Ceiling: Sample{4.716981132075472, true}, WorkersWithoutRunner: 1}
	if s.Cluster != want {
		t.Errorf("cluster %+v, want %+v", s.Cluster, want)
	}
	if s.Used["task"] != "probe" || s.Used["job"] != "redis" || len(s.Service) != 3 {
		t.Errorf("service %+v used %v", s.Service, s.Used)
	}
	if s.Queue["active"] != 15 || s.Queue["waiting"] != 5 {
		t.Errorf("queue %v", s.Queue)
	}
}

// Containers keep the order of their first series; one without memory
// figures (main) has only a limit, OOM flag and restarts.
func TestParseContainers(t *testing.T) {
	s := parseFile(t, "testdata/full.prom")
	var names []string
	for _, c := range s.Containers {
		names = append(names, c.Name)
	}
	if want := []string{"n8n-lab-runner-1-1", "n8n-lab-worker-1", "n8n-lab-main"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("containers %v, want %v", names, want)
	}
	runner := Container{Name: "n8n-lab-runner-1-1", Role: "runner", WorkingSet: Sample{89128960, true},
		Limit: Sample{2 << 30, true}, OOMKills: Sample{2, true}, Restarts: Sample{3, true}, OOMKilled: Sample{1, true}}
	if s.Containers[0] != runner {
		t.Errorf("runner %+v\nwant %+v", s.Containers[0], runner)
	}
	if m := s.Containers[2]; m.Role != "main" || m.WorkingSet.OK || m.OOMKills.OK || !m.Limit.OK || !m.Restarts.OK {
		t.Errorf("main %+v", m)
	}
}

func TestParseProbes(t *testing.T) {
	s := parseFile(t, "testdata/full.prom")
	want := []Probe{{Name: "probe-1", TasksRunning: Sample{5, true}, TaskDuration: Histogram{42.4, 40, true},
		InferredLimit: Sample{5, true}, Connections: map[string]float64{"runner": 1, "launcher": 1}}}
	if !reflect.DeepEqual(s.Probes, want) {
		t.Errorf("probes %+v\nwant %+v", s.Probes, want)
	}
	if n, ok := s.TasksRunning(); n != 5 || !ok {
		t.Errorf("tasks running %v %v", n, ok)
	}
}

// Two probes add up; a page without probe series reports none running.
func TestProbeSums(t *testing.T) {
	s, err := Parse(strings.NewReader(`# TYPE n8n_runner_tasks_running gauge
n8n_runner_tasks_running{probe="a"} 2
n8n_runner_tasks_running{probe="b"} 3
# TYPE n8n_runner_task_duration_seconds histogram
n8n_runner_task_duration_seconds_sum{probe="a"} 1.5
n8n_runner_task_duration_seconds_count{probe="a"} 1
n8n_runner_task_duration_seconds_sum{probe="b"} 4.5
n8n_runner_task_duration_seconds_count{probe="b"} 3
`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := s.TasksRunning(); n != 5 || !ok {
		t.Errorf("tasks running %v %v, want 5", n, ok)
	}
	if h := s.TaskDuration(); h != (Histogram{6, 4, true}) {
		t.Errorf("task duration %+v, want sum 6 count 4", h)
	}
	if _, err := s.Model(); err == nil {
		t.Error("a probe's page has no workers, yet it gave a model")
	}
	empty, err := Parse(strings.NewReader("up 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := empty.TasksRunning(); ok || empty.TaskDuration().OK {
		t.Error("a page without probe series reported probe figures")
	}
}

// A failed scrape names the URL without its password or query values,
// also where the HTTP client's own error repeats the URL.
func TestReadErrorHidesSecrets(t *testing.T) {
	r := &Reader{URL: "http://u:pwSECRET1@" + testtool.ClosedAddr(t) + "/metrics?auth=tokSECRET2"}
	_, err := r.Read(context.Background())
	if err == nil {
		t.Fatal("a closed port answered")
	}
	for _, secret := range []string{"pwSECRET1", "tokSECRET2"} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error leaks %s: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "auth=xxxxx") {
		t.Fatalf("error does not name the redacted URL: %v", err)
	}
}

// N8nVersion reads the version n8n states about itself, without its "v";
// a /metrics without n8n_version_info is an error, not a guess.
func TestN8nVersion(t *testing.T) {
	body := "# HELP n8n_version_info n8n version info.\n# TYPE n8n_version_info gauge\n" +
		"n8n_version_info{version=\"v2.41.1\",major=\"2\",minor=\"41\",patch=\"1\"} 1\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			_, _ = w.Write([]byte(body))
			return
		}
		_, _ = w.Write([]byte("n8n_cluster_effective_concurrency 4\n"))
	}))
	defer srv.Close()
	if v, err := (&Reader{URL: srv.URL + "/metrics"}).N8nVersion(context.Background()); err != nil || v != "2.41.1" {
		t.Errorf("version %q (%v), want 2.41.1", v, err)
	}
	if v, err := (&Reader{URL: srv.URL + "/other"}).N8nVersion(context.Background()); err == nil || !strings.Contains(err.Error(), "no n8n_version_info") {
		t.Errorf("version %q (%v) from a scrape without it, want an error naming the metric", v, err)
	}
}
