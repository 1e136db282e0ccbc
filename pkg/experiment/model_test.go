package experiment

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

func parseFixture(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	f, err := os.Open("../snapshot/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := snapshot.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// On the exporter fixture the prediction takes the marked source
// (broker, 1.06 s), not the config's 1.0 s, and the exporter's own
// ceiling; without one it says so and predicts nothing.
func TestPredictionOfUsesMarkedSource(t *testing.T) {
	s := parseFixture(t, "exporter.prom")
	p := PredictionOf(s)
	if p.Ceiling != 9.433962264150944 || p.TaskSeconds != 1.06 || p.TaskSource != "broker" || p.JobSource != "queue" ||
		p.Bottleneck != "runner" || p.Effective != 10 || p.Error != "" {
		t.Errorf("prediction %+v", p)
	}
	s.Cluster.Ceiling = snapshot.Sample{}
	if p := PredictionOf(s); p.Ceiling != 0 || !strings.Contains(p.Error, "no ceiling") {
		t.Errorf("without a published ceiling: %+v", p)
	}
	if p := PredictionOf(nil); p.Error == "" || p.Topology.Workers != 0 {
		t.Errorf("without any scrape: %+v", p)
	}
}

// The topology counts every runner limit, the one that reaches no worker
// too, and names the worker whose runner capacity is 0.
func TestTopologyOf(t *testing.T) {
	got := TopologyOf(parseFixture(t, "full.prom"))
	want := Topology{WorkerConcurrency: []int{15, 15}, RunnerLimits: []int{5, 20}, Workers: 2,
		WorkersWithoutRunner: 1, WithoutRunner: []string{"n8n-lab-worker-2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("topology %+v, want %+v", got, want)
	}
	empty := TopologyOf(&snapshot.Snapshot{})
	if empty.WorkerConcurrency == nil || empty.RunnerLimits == nil || empty.WithoutRunner == nil {
		t.Errorf("an empty scrape must give empty lists, not null: %+v", empty)
	}
}
