package collector

import (
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Each process that queues executions and keeps no completed job is named
// on the pages, one that keeps some is not, one whose setting is unknown
// is named with the reason, and a worker never is.
func TestKeepLines(t *testing.T) {
	r := shapeReport(t, ServiceTime{Stage: "job", Source: "redis", Time: time.Second},
		"inspect-internal-worker.json", "inspect-queue-main.json", "inspect-webhook.json")
	hasLines(t, Verdict(r),
		"main fx-queue-main (queue mode) keeps no completed job in Redis (N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED 0, n8n's default)",
		"webhook processor fx-webhook keeps no completed job in Redis")

	for i, p := range r.Processes {
		switch p.Role {
		case topology.RoleMain:
			r.Processes[i].Settings.KeepCompleted = topology.Of(1000)
		case topology.RoleWebhook:
			r.Processes[i].Settings.KeepCompleted = topology.Setting[int]{Unknown: "N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: from Secret n8n/env"}
		}
	}
	got := keepLines(r)
	want := "webhook processor fx-webhook: how many completed jobs Bull keeps is unknown (N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: from Secret n8n/env)"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("with main keeping 1000 and the webhook's setting unknown: %q, want one line starting %q", got, want)
	}
	// The same lines without a verdict: no worker at all.
	r = shapeReport(t, ServiceTime{Stage: "job", Source: "redis", Time: time.Second}, "inspect-queue-main.json")
	hasLines(t, Verdict(r), "main fx-queue-main (queue mode) keeps no completed job")
}
