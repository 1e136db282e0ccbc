package snapshot

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

func TestModelFixture(t *testing.T) {
	f, err := os.Open("testdata/exporter.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	md := mustModel(t, f)
	if n := len(md.Cluster.Workers); n != 2 {
		t.Fatalf("workers = %d, want 2", n)
	}
	w := md.Cluster.Workers[0]
	if w.Name != "worker-1" || w.Concurrency != 15 || len(w.Runners) != 1 || w.Runners[0].Limit != 5 {
		t.Errorf("worker-1 = %+v", w)
	}
	// The largest source per stage wins: 1.06 s, not the configured 1.0 s.
	if want := capacity.Single(1060 * time.Millisecond); md.Cluster.Service != want {
		t.Errorf("service = %+v, want %+v", md.Cluster.Service, want)
	}
	if math.Abs(md.Ceiling-9.433962264150944) > 1e-9 || md.Effective != 10 || md.Bottleneck != "runner" {
		t.Errorf("snapshot = ceiling %v effective %d bottleneck %q", md.Ceiling, md.Effective, md.Bottleneck)
	}
	p, err := capacity.PredictClosedLoop(md.Verdict, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.QueueWait != 0 || math.Abs(p.Throughput-md.Verdict.Ceiling) > 1e-9 {
		t.Errorf("prediction for 20 VU = %+v", p)
	}
}

func TestModelWithoutPublishedFigures(t *testing.T) {
	text := `n8n_worker_concurrency{worker="a"} 4
n8n_worker_concurrency{worker="b"} 15
n8n_runner_max_concurrency{runner="r1",worker="a"} 10
n8n_runner_max_concurrency{runner="r2",worker="b"} 5
n8n_service_time_seconds{stage="job",source="queue"} 2
n8n_service_time_seconds{stage="task",source="broker"} 2
`
	md := mustModel(t, strings.NewReader(text))
	// a: min(4,10)/2 = 2, b: min(15,5)/2 = 2.5; no published ceiling.
	if md.Ceiling != 4.5 || md.Effective != 9 {
		t.Errorf("ceiling %v effective %d, want 4.5 and 9", md.Ceiling, md.Effective)
	}
	if md.Bottleneck != "a=worker,b=runner" {
		t.Errorf("bottleneck %q", md.Bottleneck)
	}
}

func TestModelUsedSourceAndStrayRunner(t *testing.T) {
	text := `n8n_worker_concurrency{worker="a"} 15
n8n_runner_max_concurrency{runner="r1",worker="a"} 5
n8n_runner_max_concurrency{runner="stray",worker=""} 20
n8n_service_time_seconds{stage="job",source="queue"} 3
n8n_service_time_seconds{stage="job",source="broker"} 1
n8n_service_time_seconds{stage="task",source="broker"} 1
n8n_service_time_seconds{stage="task",source="config"} 2
n8n_exporter_service_time_used{stage="job",source="broker"} 1
n8n_exporter_service_time_used{stage="job",source="queue"} 0
`
	md := mustModel(t, strings.NewReader(text))
	// job: the marked source (1 s), not the larger 3 s; task: no mark, so
	// the largest (2 s). The stray runner adds nothing.
	want := capacity.ServiceTime{Job: time.Second, Task: 2 * time.Second}
	if md.Cluster.Service != want || len(md.Cluster.Workers[0].Runners) != 1 || md.Ceiling != 2.5 {
		t.Errorf("service %+v runners %+v ceiling %v", md.Cluster.Service, md.Cluster.Workers[0].Runners, md.Ceiling)
	}
}

func TestModelErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no workers":  "n8n_cluster_effective_concurrency 3\n",
		"zero worker": "n8n_worker_concurrency{worker=\"a\"} 0\n",
		"garbage":     "n8n_worker_concurrency{worker=\"a\" 4\n",
	} {
		if _, err := modelOf(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The reader fetches over HTTP; a non-200 answer is an error that names
// the URL without its password.
func TestReaderHTTP(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	defer srv.Close()
	s, err := (&Reader{URL: srv.URL + "/exporter.prom"}).Read(context.Background())
	if err != nil || s.Cluster.Effective.Value != 10 || len(s.Workers) != 2 {
		t.Fatalf("read = %+v, %v", s, err)
	}
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/nope"
	_, err = (&Reader{URL: u}).Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "secret") {
		t.Errorf("404 error = %v", err)
	}
}

// A worker without runner has no flag set: it reads "none" beside the
// flagged one. The figures behind the service time keep their sources.
func TestModelRunnerlessWorkerAndFigures(t *testing.T) {
	text := `n8n_worker_concurrency{worker="a"} 15
n8n_worker_concurrency{worker="b"} 15
n8n_runner_max_concurrency{runner="r1",worker="a"} 5
n8n_worker_bottleneck{worker="a",component="runner"} 1
n8n_worker_bottleneck{worker="a",component="worker"} 0
n8n_worker_bottleneck{worker="b",component="runner"} 0
n8n_worker_bottleneck{worker="b",component="worker"} 0
n8n_service_time_seconds{stage="job",source="probe"} 1.25
n8n_service_time_seconds{stage="task",source="probe"} 1.06
n8n_service_time_seconds{stage="task",source="n8n"} 3
n8n_exporter_service_time_used{stage="task",source="probe"} 1
`
	md := mustModel(t, strings.NewReader(text))
	if md.Bottleneck != "a=runner,b=none" {
		t.Errorf("bottleneck %q, want a=runner,b=none", md.Bottleneck)
	}
	if md.Job != (ServiceFigure{1.25, "probe"}) || md.Task != (ServiceFigure{1.06, "probe"}) || md.CeilingPublished {
		t.Errorf("job %+v task %+v published %v", md.Job, md.Task, md.CeilingPublished)
	}
}

// modelOf parses a scrape and evaluates its model.
func modelOf(in io.Reader) (Model, error) {
	s, err := Parse(in)
	if err != nil {
		return Model{}, err
	}
	return s.Model()
}

func mustModel(t *testing.T, in io.Reader) Model {
	t.Helper()
	md, err := modelOf(in)
	if err != nil {
		t.Fatal(err)
	}
	return md
}
