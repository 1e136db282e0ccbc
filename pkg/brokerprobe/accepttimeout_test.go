package brokerprobe

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// acceptTimeoutSession is the wire order of n8n 2.41.1 when a runner with
// N8N_RUNNERS_MAX_CONCURRENCY=3 runs CPU-bound Code tasks: its event loop
// is blocked past the broker's accept window (N8N_RUNNERS_TASK_ACCEPT_TIMEOUT,
// 2 s), so the broker cancels t4 ("Acknowledgement window elapsed") while
// the runner has not read the accept. Once free, the runner finishes t2,
// offers, answers the stale accept with runner:taskaccepted, then reads the
// cancel and frees t4's slot without a message (task-runner.ts
// taskCancelled, waitingForSettings), offering again.
const acceptTimeoutSession = `B{"type":"broker:inforequest"}
R{"type":"runner:info","name":"JS Task Runner","types":["javascript"]}
B{"type":"broker:runnerregistered"}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5120}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o2","validFor":5301}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o3","validFor":5044}
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
B{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}
B{"type":"broker:taskofferaccept","taskId":"t3","offerId":"o3"}
R{"type":"runner:taskaccepted","taskId":"t1"}
R{"type":"runner:taskaccepted","taskId":"t2"}
R{"type":"runner:taskaccepted","taskId":"t3"}
B{"type":"broker:tasksettings","taskId":"t1","settings":{"code":"heavy()"}}
B{"type":"broker:tasksettings","taskId":"t2","settings":{"code":"heavy()"}}
B{"type":"broker:tasksettings","taskId":"t3","settings":{"code":"heavy()"}}
+3000
R{"type":"runner:taskdone","taskId":"t1","data":{"result":[]}}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o4","validFor":5250}
B{"type":"broker:taskofferaccept","taskId":"t4","offerId":"o4"}
+2000
B{"type":"broker:taskcancel","taskId":"t4","reason":"Acknowledgement window elapsed"}
+1000
R{"type":"runner:taskdone","taskId":"t2","data":{"result":[]}}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o5","validFor":5412}
R{"type":"runner:taskaccepted","taskId":"t4"}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o6","validFor":5007}
+3000
R{"type":"runner:taskdone","taskId":"t3","data":{"result":[]}}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o7","validFor":5333}
B{"type":"broker:taskofferaccept","taskId":"t5","offerId":"o5"}
B{"type":"broker:taskofferaccept","taskId":"t6","offerId":"o6"}
B{"type":"broker:taskofferaccept","taskId":"t7","offerId":"o7"}
R{"type":"runner:taskaccepted","taskId":"t5"}
R{"type":"runner:taskaccepted","taskId":"t6"}
R{"type":"runner:taskaccepted","taskId":"t7"}
+1000
R{"type":"runner:taskdone","taskId":"t5","data":{"result":[]}}
R{"type":"runner:taskdone","taskId":"t6","data":{"result":[]}}
R{"type":"runner:taskdone","taskId":"t7","data":{"result":[]}}`

// replay relays a script's lines through the probe as the runner and the
// broker would send them, checking the gauges after each against the
// runner's true limit.
func replay(t *testing.T, r *rig, runner, broker *websocket.Conn, script string, limit int) {
	t.Helper()
	for _, line := range strings.Split(script, "\n") {
		switch line[0] {
		case '+':
			d, err := time.ParseDuration(line[1:] + "ms")
			if err != nil {
				t.Fatal(err)
			}
			r.clock.Advance(d)
		case 'R':
			relayText(t, runner, broker, line[1:])
		case 'B':
			relayText(t, broker, runner, line[1:])
		}
		if s := r.probe.Stats(); s.Running > limit || s.Running+s.OffersOpen > limit || s.InferredLimit > limit {
			t.Fatalf("after %s: running %d, offers %d, inferred limit %d; the runner's limit is %d",
				line, s.Running, s.OffersOpen, s.InferredLimit, limit)
		}
	}
}

// The runner's late answer to an accept the broker already cancelled is
// not a running task: running returns to 0 when the runner is idle and the
// inferred limit stays at the runner's 3.
func TestAcceptTimeoutLateAcceptNotCounted(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	replay(t, r, runner, broker, acceptTimeoutSession, 3)
	assertStats(t, r.probe, 0, 0, 3)
	want := `
# HELP n8n_runner_tasks_total Tasks that reached an outcome on the runner's websocket.
# TYPE n8n_runner_tasks_total counter
n8n_runner_tasks_total{outcome="accept_timeout",probe="test"} 1
n8n_runner_tasks_total{outcome="cancelled",probe="test"} 0
n8n_runner_tasks_total{outcome="deferred",probe="test"} 0
n8n_runner_tasks_total{outcome="done",probe="test"} 6
n8n_runner_tasks_total{outcome="error",probe="test"} 0
n8n_runner_tasks_total{outcome="lost",probe="test"} 0
n8n_runner_tasks_total{outcome="rejected",probe="test"} 0
`
	if err := testutil.CollectAndCompare(r.probe, strings.NewReader(want), "n8n_runner_tasks_total"); err != nil {
		t.Fatal(err)
	}
}

// playState feeds a script to a bare connection state.
func playState(c *connState, now time.Time, script string) time.Time {
	for _, line := range strings.Split(script, "\n") {
		step(c, &now, []byte(line))
	}
	return now
}

// The runner's answer can cross the broker's cancel on the wire: the task
// is running when the accept-timeout cancel passes. It ends there, as an
// accept timeout, and the runner frees it silently.
func TestAcceptTimeoutCrossingTheAnswer(t *testing.T) {
	tl := newTally("test", 0)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newConnState("r", now, tl)
	now = playState(c, now, `R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
+1999
R{"type":"runner:taskaccepted","taskId":"t1"}
+1
B{"type":"broker:taskcancel","taskId":"t1","reason":"Acknowledgement window elapsed"}`)
	if info := c.info(now); info.Running != 0 || info.InferredLimit != 1 {
		t.Fatalf("after the crossing: %+v", info)
	}
	if tl.count(outcomeAcceptTimeout) != 1 || tl.count(outcomeCancelled) != 0 {
		t.Fatalf("accept timeouts %d, cancels %d; want 1, 0", tl.count(outcomeAcceptTimeout), tl.count(outcomeCancelled))
	}
}

// A late rejection or deferral answers a task that already has its
// outcome: it is not counted again, and a cancel of a running task for
// any other reason is still a cancel.
func TestLateAnswersCountOnce(t *testing.T) {
	tl := newTally("test", 0)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newConnState("r", now, tl)
	now = playState(c, now, `B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
B{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}
B{"type":"broker:taskofferaccept","taskId":"t3","offerId":"o3"}
B{"type":"broker:taskcancel","taskId":"t1","reason":"Acknowledgement window elapsed"}
B{"type":"broker:taskcancel","taskId":"t2","reason":"Acknowledgement window elapsed"}
R{"type":"runner:taskrejected","taskId":"t1","reason":"No open task slots - runner already at capacity"}
R{"type":"runner:taskdeferred","taskId":"t2"}
R{"type":"runner:taskaccepted","taskId":"t3"}
B{"type":"broker:taskcancel","taskId":"t3","reason":"Task request expired"}`)
	got := map[string]uint64{}
	for o, name := range outcomeLabels {
		got[name] = tl.count(outcome(o))
	}
	if got["accept_timeout"] != 2 || got["rejected"] != 0 || got["deferred"] != 0 || got["cancelled"] != 1 {
		t.Fatalf("outcomes %v", got)
	}
	if info := c.info(now); info.Running != 0 || c.late.len() != 0 {
		t.Fatalf("running %d, %d tasks still remembered; want 0, 0", info.Running, c.late.len())
	}
}
