package experiment

import (
	"os"
	"strings"
	"testing"
)

// On loadgen's exporter fixture the prediction takes the marked source
// (broker, 1.06 s), not the config's 1.0 s, and the exporter's own
// ceiling; without one it says so and predicts nothing.
func TestPredictionOfUsesMarkedSource(t *testing.T) {
	data, err := os.ReadFile("../loadgen/testdata/exporter.prom")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseScrape(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	p := PredictionOf(s)
	if p.Ceiling != 9.433962264150944 || p.TaskSeconds != 1.06 || p.TaskSource != "broker" || p.JobSource != "queue" ||
		p.Bottleneck != "runner" || p.Effective != 10 || p.Error != "" {
		t.Errorf("prediction %+v", p)
	}
	delete(s, "n8n_cluster_ceiling_executions_per_second")
	if p := PredictionOf(s); p.Ceiling != 0 || !strings.Contains(p.Error, "no ceiling") {
		t.Errorf("without a published ceiling: %+v", p)
	}
}
