package experiment

import (
	"strings"
	"testing"
)

// The prediction takes the marked source (probe, 1 s), not the larger n8n
// figure, and the exporter's own ceiling; without one it says so.
func TestPredictionOfUsesMarkedSource(t *testing.T) {
	text := `n8n_worker_concurrency{worker="w1"} 15
n8n_runner_max_concurrency{runner="r1",worker="w1"} 5
n8n_worker_runner_capacity{worker="w1"} 5
n8n_worker_bottleneck{worker="w1",component="runner"} 1
n8n_service_time_seconds{stage="job",source="probe"} 1
n8n_service_time_seconds{stage="job",source="n8n"} 99
n8n_service_time_seconds{stage="task",source="probe"} 1
n8n_exporter_service_time_used{stage="job",source="probe"} 1
n8n_exporter_service_time_used{stage="task",source="probe"} 1
`
	s, err := ParseScrape(strings.NewReader(text + "n8n_cluster_ceiling_executions_per_second 4.9\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := PredictionOf(s)
	if p.Ceiling != 4.9 || p.JobSeconds != 1 || p.JobSource != "probe" || p.Bottleneck != "runner" || p.Effective != 5 || p.Error != "" {
		t.Errorf("prediction %+v", p)
	}
	s, _ = ParseScrape(strings.NewReader(text))
	if p := PredictionOf(s); p.Ceiling != 0 || !strings.Contains(p.Error, "no ceiling") {
		t.Errorf("without a published ceiling: %+v", p)
	}
}
