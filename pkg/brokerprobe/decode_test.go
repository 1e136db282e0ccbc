package brokerprobe

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// decodeText parses a /metrics text and decodes its probes.
func decodeText(t *testing.T, text string) []Reading {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return Decode(fams)
}

// What a probe's Collect publishes, read back as text, decodes to the
// probe's own Stats (less the recent mean, which the text does not carry),
// an unresponsive runner and the broker's accept timeouts, 1002 close and
// drain among them, and its task histogram's sum and count.
func TestDecodeRoundTrip(t *testing.T) {
	r := newRig(t)
	runner, broker := r.connect(t, "r")
	for _, id := range []string{"t1", "t2", "t3"} {
		startTask(t, runner, broker, id)
	}
	r.clock.Advance(2 * time.Second)
	relayText(t, runner, broker, `{"type":"runner:taskdone","taskId":"t1","data":{"result":[]}}`)
	r.clock.Advance(time.Second)
	relayText(t, runner, broker, `{"type":"runner:taskerror","taskId":"t2","error":{"message":"x"}}`)
	relayText(t, runner, broker, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"o-4","validFor":5000}`)
	launcher, lb := r.connect(t, "launcher")
	relayText(t, lb, launcher, `{"type":"broker:inforequest"}`)
	relayText(t, launcher, lb, `{"type":"runner:info","name":"launcher-javascript","types":["javascript"]}`)
	relayText(t, launcher, lb, `{"type":"runner:taskoffer","taskType":"javascript","offerId":"lo","validFor":-1}`)

	// A second runner misses three accepts, drains, and is closed with 1002.
	other, ob := r.connect(t, "r2")
	acceptTimeouts(t, other, ob, 10, 3)
	relayText(t, ob, other, `{"type":"broker:drain"}`)
	brokerClosesOne(t, other, ob)
	waitFor(t, "r2 closed", func() bool { return len(r.probe.Connections()) == 2 })

	open := r.probe.Stats().OffersOpen
	r.clock.Advance(9 * time.Second) // t3 held in silence past 5 s validity + 2.5 s mean
	want := r.probe.Stats()
	got := decodeText(t, metricsText(t, r.probe))
	if len(got) != 1 {
		t.Fatalf("decoded %d probes, want 1: %+v", len(got), got)
	}
	want.RecentTaskMean, want.RecentTaskCount, want.RecentHandoffMean, want.RecentHandoffCount = 0, 0, 0, 0
	if !reflect.DeepEqual(got[0].Stats, want) {
		t.Errorf("decoded %+v\nwant     %+v", got[0].Stats, want)
	}
	if want.Running != 1 || want.TasksDone != 1 || want.TasksFailed != 1 || open != 1 || want.LauncherConnections != 1 || want.Unresponsive != 1 ||
		want.AcceptTimeouts != 3 || want.UnresponsiveCloses != 1 || want.Drains != 1 ||
		!reflect.DeepEqual(want.Upstreams, []UpstreamPeer{{Peer: brokerEndpoint(t, r), Connections: 2}}) {
		t.Errorf("the rig did not reach the figures it sets up: %+v", want)
	}
	g := got[0]
	if g.TaskCount != 2 || g.TaskSum != 5 || !g.HasRunning || !g.HasLimit || !g.HasConnections || !g.HasDuration {
		t.Errorf("histogram sum %v count %d, has %v %v %v %v; want 5 s over 2 tasks, every family",
			g.TaskSum, g.TaskCount, g.HasRunning, g.HasLimit, g.HasConnections, g.HasDuration)
	}
}

// Probes come back in order of first appearance; a probe's several series
// add up; a broken or hostile value reads as 0 or capped.
func TestDecodeBadValues(t *testing.T) {
	got := decodeText(t, `# TYPE n8n_runner_tasks_running gauge
n8n_runner_tasks_running{probe="b",x="1"} 2
n8n_runner_tasks_running{probe="b",x="2"} 3
n8n_runner_tasks_running{probe="a"} NaN
# TYPE n8n_runner_inferred_max_concurrency gauge
n8n_runner_inferred_max_concurrency{probe="a"} 1e300
n8n_runner_inferred_max_concurrency{probe="b"} -4
# TYPE n8n_runner_tasks_total counter
n8n_runner_tasks_total{outcome="done",probe="a"} 1e300
n8n_runner_tasks_total{outcome="lost",probe="a"} 3
n8n_runner_tasks_total{outcome="error",probe="a"} 4
# TYPE n8n_runner_task_duration_seconds histogram
n8n_runner_task_duration_seconds_sum{probe="a"} NaN
n8n_runner_task_duration_seconds_count{probe="a"} 7
n8n_runner_task_duration_seconds_sum{probe="b"} 1.5
n8n_runner_task_duration_seconds_count{probe="b"} 2
`)
	if len(got) != 2 || got[0].Name != "b" || got[1].Name != "a" {
		t.Fatalf("probes %+v, want b then a", got)
	}
	b, a := got[0], got[1]
	if b.Running != 5 || b.InferredLimit != 0 || !b.HasLimit || b.TaskSum != 1.5 || b.TaskCount != 2 || b.HasConnections {
		t.Errorf("b: %+v", b)
	}
	if a.Running != 0 || !a.HasRunning || a.InferredLimit != maxGauge || a.TasksDone != maxCount || a.TasksFailed != 7 || a.HasDuration || a.TaskCount != 0 {
		t.Errorf("a: %+v", a)
	}
	if none := Decode(nil); len(none) != 0 {
		t.Errorf("no families gave %+v", none)
	}
}
