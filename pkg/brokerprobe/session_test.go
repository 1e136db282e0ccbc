package brokerprobe

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestEveryMessageType drives one runner session through every message of
// n8n's task runner protocol and checks each is relayed byte for byte and moves the
// state and metrics as the protocol says.
func TestEveryMessageType(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "runner-a")
	var toRunner, toBroker int // messages each way, to check frames_total
	b2r := func(m string) { relayText(t, broker, runner, m); toRunner++ }
	r2b := func(m string) { relayText(t, runner, broker, m); toBroker++ }

	b2r(`{"type":"broker:inforequest"}`)
	r2b(`{"type":"runner:info","name":"JS Task Runner","types":["javascript"]}`)
	b2r(`{"type":"broker:runnerregistered"}`)
	for i := 1; i <= 3; i++ {
		r2b(fmt.Sprintf(`{"type":"runner:taskoffer","taskType":"javascript","offerId":"o%d","validFor":5000}`, i))
	}
	assertStats(t, r.probe, 0, 3, 3)

	// Task 1: accepted, full data/node-type/rpc round trips, done after 1.5 s.
	b2r(`{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}`)
	r2b(`{"type":"runner:taskaccepted","taskId":"t1"}`)
	assertStats(t, r.probe, 1, 2, 3)
	b2r(`{"type":"broker:tasksettings","taskId":"t1","settings":{"code":"return []","nodeMode":"runOnceForAllItems"}}`)
	r2b(`{"type":"runner:taskdatarequest","taskId":"t1","requestId":"q1","requestParams":{"dataOfNodes":"all"}}`)
	b2r(`{"type":"broker:taskdataresponse","taskId":"t1","requestId":"q1","data":{"workflow":{"id":"w"}}}`)
	r2b(`{"type":"runner:nodetypesrequest","taskId":"t1","requestId":"q2","requestParams":[{"name":"n8n-nodes-base.set","version":1}]}`)
	b2r(`{"type":"broker:nodetypes","taskId":"t1","requestId":"q2","nodeTypes":[]}`)
	r2b(`{"type":"runner:rpc","callId":"c1","taskId":"t1","name":"helpers.httpRequest","params":[]}`)
	b2r(`{"type":"broker:rpcresponse","callId":"c1","taskId":"t1","status":"success","data":{}}`)
	r.clock.Advance(1500 * time.Millisecond)
	r2b(`{"type":"runner:taskdone","taskId":"t1","data":{"result":[{"json":{"ok":true}}]}}`)
	r2b(`{"type":"runner:taskoffer","taskType":"javascript","offerId":"o4","validFor":5200}`)
	assertStats(t, r.probe, 0, 3, 3)

	// Task 2 errors after 0.5 s.
	b2r(`{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}`)
	r2b(`{"type":"runner:taskaccepted","taskId":"t2"}`)
	r.clock.Advance(500 * time.Millisecond)
	r2b(`{"type":"runner:taskerror","taskId":"t2","error":{"message":"boom"}}`)

	// Task 3 is cancelled; a late done for it must not count twice.
	b2r(`{"type":"broker:taskofferaccept","taskId":"t3","offerId":"o3"}`)
	r2b(`{"type":"runner:taskaccepted","taskId":"t3"}`)
	assertStats(t, r.probe, 1, 1, 3)
	b2r(`{"type":"broker:taskcancel","taskId":"t3","reason":"workflow cancelled"}`)
	r2b(`{"type":"runner:taskdone","taskId":"t3","data":{}}`)
	assertStats(t, r.probe, 0, 1, 3)

	// Two rejections, one per reason class.
	b2r(`{"type":"broker:taskofferaccept","taskId":"t4","offerId":"o4"}`)
	r2b(`{"type":"runner:taskrejected","taskId":"t4","reason":"No open task slots - runner already at capacity"}`)
	b2r(`{"type":"broker:taskofferaccept","taskId":"t5","offerId":"gone"}`)
	r2b(`{"type":"runner:taskrejected","taskId":"t5","reason":"Offer expired - not accepted within validity window"}`)
	assertStats(t, r.probe, 0, 0, 3)

	b2r(`{"type":"broker:drain"}`)
	if c := r.probe.Connections(); len(c) != 1 || !c[0].Draining || c[0].Name != "JS Task Runner" || c[0].ID != "runner-a" {
		t.Fatalf("connection info after drain: %+v", c)
	}

	want := `
# HELP n8n_runner_frames_total Websocket data messages relayed, by direction.
# TYPE n8n_runner_frames_total counter
n8n_runner_frames_total{direction="to_broker",probe="test"} ` + fmt.Sprint(toBroker) + `
n8n_runner_frames_total{direction="to_runner",probe="test"} ` + fmt.Sprint(toRunner) + `
# HELP n8n_runner_frame_parse_errors_total Relayed messages whose first 4 KiB did not parse as a task-runner message; they were forwarded unchanged.
# TYPE n8n_runner_frame_parse_errors_total counter
n8n_runner_frame_parse_errors_total{probe="test"} 0
# HELP n8n_runner_tasks_total Tasks that reached an outcome on the runner's websocket.
# TYPE n8n_runner_tasks_total counter
n8n_runner_tasks_total{outcome="accept_timeout",probe="test"} 0
n8n_runner_tasks_total{outcome="cancelled",probe="test"} 1
n8n_runner_tasks_total{outcome="deferred",probe="test"} 0
n8n_runner_tasks_total{outcome="done",probe="test"} 1
n8n_runner_tasks_total{outcome="error",probe="test"} 1
n8n_runner_tasks_total{outcome="lost",probe="test"} 0
n8n_runner_tasks_total{outcome="rejected",probe="test"} 2
# HELP n8n_runner_task_rejections_total Task offers accepted by the broker but rejected by the runner, by reason class.
# TYPE n8n_runner_task_rejections_total counter
n8n_runner_task_rejections_total{probe="test",reason="at_capacity"} 1
n8n_runner_task_rejections_total{probe="test",reason="offer_expired"} 1
n8n_runner_task_rejections_total{probe="test",reason="other"} 0
n8n_runner_task_rejections_total{probe="test",reason="shutting_down"} 0
# HELP n8n_runner_connections Open websocket connections through the probe, by kind (runner or launcher).
# TYPE n8n_runner_connections gauge
n8n_runner_connections{kind="launcher",probe="test"} 0
n8n_runner_connections{kind="runner",probe="test"} 1
`
	names := []string{"n8n_runner_frames_total", "n8n_runner_frame_parse_errors_total", "n8n_runner_tasks_total",
		"n8n_runner_task_rejections_total", "n8n_runner_connections"}
	if err := testutil.CollectAndCompare(r.probe, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	assertDurations(t, r.probe, 2, 2.0)
	s := r.probe.Stats()
	if s.TasksDone != 1 || s.TasksFailed != 1 || s.RecentTaskCount != 2 || s.RecentTaskMean != time.Second {
		t.Fatalf("stats: %+v", s)
	}
}

func assertStats(t *testing.T, p *Probe, running, offers, limit int) {
	t.Helper()
	s := p.Stats()
	if s.Running != running || s.OffersOpen != offers || s.InferredLimit != limit {
		t.Fatalf("running/offers/limit = %d/%d/%d, want %d/%d/%d", s.Running, s.OffersOpen, s.InferredLimit, running, offers, limit)
	}
}

// assertDurations checks the task-duration histogram's count and sum.
func assertDurations(t *testing.T, p *Probe, count uint64, sum float64) {
	t.Helper()
	reg := newPedanticRegistry(t, p)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "n8n_runner_task_duration_seconds" {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != count || h.GetSampleSum() != sum {
			t.Fatalf("duration histogram count/sum = %d/%v, want %d/%v", h.GetSampleCount(), h.GetSampleSum(), count, sum)
		}
		return
	}
	t.Fatal("no n8n_runner_task_duration_seconds")
}
