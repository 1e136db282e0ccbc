package metricnames

import (
	"slices"
	"testing"
)

func TestKnownReadsEverySource(t *testing.T) {
	known, err := Known()
	if err != nil {
		t.Fatal(err)
	}
	// One name per source proves each was read.
	for _, n := range []string{"n8n_worker_concurrency", "n8n_runner_tasks_running", "loadctl_requests_total", "n8n_scaling_mode_queue_jobs_completed"} {
		if !known[n] {
			t.Errorf("%s missing from %d known names", n, len(known))
		}
	}
}

func TestUnknown(t *testing.T) {
	known := map[string]bool{"n8n_runner_task_duration_seconds": true, "loadctl_step": true}
	expr := `histogram_quantile(0.5, sum by (le) (rate(n8n_runner_task_duration_seconds_bucket[1m]))) / loadctl_step + n8n_runner_typo + probe:n8n_runner_utilisation:ratio`
	if got := Unknown(expr, known); !slices.Equal(got, []string{"n8n_runner_typo"}) {
		t.Errorf("Unknown = %v, want [n8n_runner_typo]", got)
	}
}
