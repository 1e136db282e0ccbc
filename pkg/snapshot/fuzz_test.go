package snapshot

import (
	"strings"
	"testing"
)

// A hostile page must give an error or a snapshot, never a panic.
func FuzzParse(f *testing.F) {
	f.Add("n8n_worker_concurrency{worker=\"a\"} 4\nn8n_runner_max_concurrency{runner=\"r\",worker=\"a\"} 2\n")
	f.Add("n8n_worker_concurrency{worker=\"a\"} NaN\nn8n_service_time_seconds{stage=\"job\"} +Inf\n")
	f.Add("# TYPE n8n_runner_task_duration_seconds histogram\nn8n_runner_task_duration_seconds_count{probe=\"p\"} 3\n")
	f.Fuzz(func(_ *testing.T, text string) {
		if s, err := Parse(strings.NewReader(text)); err == nil {
			_, _ = s.Model()
			s.TasksRunning()
			s.TaskDuration()
		}
	})
}
