package brokerprobe

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A runner that holds a task and sends nothing reads as unresponsive once
// its silence passes its offer validity (5 s) plus the recent mean task
// time (1 s here), and not before; its next message clears it. A silent
// runner without work is idle, not unresponsive.
func TestUnresponsiveRunnerHoldsWorkInSilence(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	replay(t, r, runner, broker, `R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
R{"type":"runner:taskaccepted","taskId":"t1"}
+1000
R{"type":"runner:taskdone","taskId":"t1","data":{"result":[]}}
R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o2","validFor":5000}
B{"type":"broker:taskofferaccept","taskId":"t2","offerId":"o2"}
R{"type":"runner:taskaccepted","taskId":"t2"}`, 1)
	unresponsive := func(want int, when string) {
		t.Helper()
		if got := r.probe.Stats().Unresponsive; got != want {
			t.Fatalf("%s: unresponsive %d, want %d", when, got, want)
		}
		text := fmt.Sprintf("n8n_runner_unresponsive_connections{probe=%q} %d", "test", want)
		if !strings.Contains(metricsText(t, r.probe), text) {
			t.Fatalf("%s: /metrics lacks %q", when, text)
		}
	}
	unresponsive(0, "at once")
	r.clock.Advance(6 * time.Second)
	unresponsive(0, "silent 6 s, the validity plus the 1 s task time")
	r.clock.Advance(10 * time.Millisecond)
	unresponsive(1, "silent past 6 s holding t2")
	relayText(t, runner, broker, `{"type":"runner:taskdone","taskId":"t2","data":{"result":[]}}`)
	unresponsive(0, "after t2's done")
	r.clock.Advance(time.Minute)
	unresponsive(0, "a minute idle with nothing held")
	if s := r.probe.Stats(); s.TasksDone != 2 || s.TasksFailed != 0 {
		t.Fatalf("tasks done %d, failed %d; want t1 and t2 done", s.TasksDone, s.TasksFailed)
	}
}

// A task the broker accepted and the runner never answered is held work
// too: a runner frozen between the accept and its answer reads as
// unresponsive before n8n's accept timeout cancels it.
func TestUnresponsiveRunnerNeverAnswers(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newConnState("r", now, newTally("test", 0))
	now = playState(c, now, `R{"type":"runner:taskoffer","taskType":"javascript","offerId":"o1","validFor":5000}
+4000
B{"type":"broker:taskofferaccept","taskId":"t1","offerId":"o1"}
+1001`)
	if info := c.info(now); info.Pending != 1 || !info.Unresponsive(0) || info.Unresponsive(time.Millisecond) {
		t.Fatalf("silent 5.001 s with t1 unanswered, validity 5 s: %+v", info)
	}
}
