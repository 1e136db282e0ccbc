package snapshot

import (
	"strings"
	"testing"
)

// A regular-mode main without a production limit is published with
// concurrency +Inf: the model bounds it by its runners alone.
func TestUnlimitedMain(t *testing.T) {
	s, err := Parse(strings.NewReader(`n8n_worker_concurrency{worker="main"} +Inf
n8n_runner_max_concurrency{runner="main/internal",worker="main"} 10
n8n_service_time_seconds{source="n8n",stage="job"} 3
n8n_service_time_seconds{source="probe",stage="task"} 2
n8n_exporter_service_time_used{source="n8n",stage="job"} 1
n8n_exporter_service_time_used{source="probe",stage="task"} 1
`))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Workers[0]; !w.Unlimited || w.Concurrency != 0 || len(w.Runners) != 1 {
		t.Fatalf("worker %+v", w)
	}
	md, err := s.Model()
	if err != nil || md.Effective != 10 || md.Ceiling != 5 || md.Bottleneck != "runner" {
		t.Errorf("model %+v %v", md, err)
	}
}
