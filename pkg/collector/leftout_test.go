package collector

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/docker/docker/client"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// On the lab's real dockerd, one container's inspect fails (a fault only a
// fake transport can inject): it is counted, named in the log without its
// env, and left out, while Docker stays up and the rest of the scrape
// stands.
func TestInspectErrorLeavesOneContainerOut(t *testing.T) {
	h := dockertest.New(t, "exec /bin/sleep 300")
	h.Start("worker-1", dockertest.WorkerArgv("--concurrency=7"), dockertest.WithSecrets(dockertest.Queue("N8N_RUNNERS_BROKER_PORT=5689")...), 0)
	runner := h.Start("runner-1-1", dockertest.RunnerArgv, dockertest.WithSecrets("N8N_RUNNERS_TASK_BROKER_URI=http://127.0.0.1:5689", "N8N_RUNNERS_MAX_CONCURRENCY=3"), 0)
	dc, err := dockerstats.NewClient("", h.Filter(), 4, client.WithHTTPClient(dockertest.NewFakeInspectFault(t, runner)))
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	logs := &testtool.SyncBuffer{}
	c := New(Config{Platform: dc, PlatformName: "docker", Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	for scrape := 1; scrape <= 2; scrape++ {
		r, err := c.Scrape(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Sources) != 1 || !r.Sources[0].Up {
			t.Fatalf("scrape %d: sources %+v, want docker up", scrape, r.Sources)
		}
		if len(r.Processes) != 1 || r.Processes[0].Name != h.Name("worker-1") || len(r.Topology.Workers) != 1 {
			t.Fatalf("scrape %d: processes %+v, want the worker alone", scrape, r.Processes)
		}
		if len(r.LeftOut) != 1 || !strings.Contains(r.LeftOut[0], h.Name("runner-1-1")) || r.LeftOutTotal["docker"] != uint64(scrape) {
			t.Fatalf("scrape %d: left out %q, total %v", scrape, r.LeftOut, r.LeftOutTotal)
		}
		want := "\n# HELP n8n_exporter_inspect_errors_total Processes the platform listed but could not inspect, since start; each was left out of its scrape.\n" +
			"# TYPE n8n_exporter_inspect_errors_total counter\n" +
			`n8n_exporter_inspect_errors_total{source="docker"} ` + itoa(scrape) + "\n"
		if err := testutil.CollectAndCompare(ReportCollector{r}, strings.NewReader(want), metricname.InspectErrors); err != nil {
			t.Error(err)
		}
	}
	log := logs.String()
	if !strings.Contains(log, "process left out of this scrape") || !strings.Contains(log, h.Name("runner-1-1")) || !strings.Contains(log, runner[:12]) {
		t.Errorf("the log does not name the left-out runner:\n%s", log)
	}
	for _, s := range dockertest.SecretValues {
		if strings.Contains(log, s) {
			t.Errorf("secret %q in the log", s)
		}
	}
}
