package comparison

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// The recordings in testdata/single-webhook are five back-to-back sweeps
// on the lab (n8n 2.23.2, queue mode, the one-webhook workflow with a 0 ms
// Code task, 1, 2 and 4 VUs, 25 s steps after 5 s warm-ups), each step
// with the stations the exporter published at its end. They keep what
// the 2-VU MVA step does: on a warm lab (runs 1, 2, 4 and 5) it predicted
// +15.0 %, +20.7 %, +18.7 % and +18.1 % above the measured throughput,
// while the 1-VU step measured 21.9 to 30.4/s from run to run (15.0/s in
// run 3, whose one-request latency of 67 ms then put 2 VU at −22.8 %).

//
// The other recordings are one run each, taken on the lab (n8n 2.23.2) by
// the shipped specs, so that a change to the model can be replayed against
// every shape before it is run: cpu-bound (2 and 8 VU; the MVA read
// −14.2 % and −15.8 %), runner-limit-5 (1 to 10 VU, within 1.6 %),
// single-webhook-32 (the scenarios' sweep, 1, 2 and 32 VU: +8.8 % at 2 VU)
// and ten-webhooks (10 and 30 VU: −5.4 % and −3.7 %). Where a step's
// latency is held up to a slot's demand (capacity.Network.MinLatency),
// that demand is the job time under load, which holds the waits the MVA
// adds again: cpu-bound's 8-VU step ran at 456 ms, the worker slot's
// hold, and ten-webhooks' 10-VU step at 120 ms.

// The recordings in testdata/queue-single-webhook-2.41 are five
// back-to-back runs of the scenarios' queue-single-webhook case on the lab
// (n8n 2.41.1, 1, 2 and 32 VUs, 15 s steps after 5 s warm-ups, 15 s
// exporter windows, each process's JavaScript thread read apart). Each
// thread's station has its cores alone (capacity.Bounds.Stations). The
// exporter before that held each thread at the share of its runnable time
// it ran, which counts its wait for a core at the thread and again at
// cpu:host: one run on the same lab then put the 2-VU step at −14.8 %.

// On the 2.41.1 recordings the MVA is within 10 % of the measured
// throughput at every step: 2 VU +1.8 % to +3.6 %, 32 VU −6.9 % to −1.7 %
// (1 VU is its own latency).
func TestMVAWithinTenPercentOnTheRecordings(t *testing.T) {
	runs, err := filepath.Glob("testdata/queue-single-webhook-2.41/*.json")
	if err != nil || len(runs) < 5 {
		t.Fatalf("want five recorded runs, got %v (%v)", runs, err)
	}
	for _, path := range runs {
		steps := readSweep(t, path).Steps
		got, err := Replay(steps)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, s := range steps {
			if dev := got[i]/s.Figures.Throughput - 1; !(math.Abs(dev) <= 0.10) {
				t.Errorf("%s, %d VU: predicted %.3f/s, measured %.3f/s (%+.1f %%), want within 10 %%", path, s.Load.VUs, got[i], s.Figures.Throughput, 100*dev)
			}
		}
	}
}

// Replay reproduces, step by step, the prediction the Hook recorded while
// each sweep ran, for every recording kept.
func TestReplayMatchesTheRecording(t *testing.T) {
	if five, err := filepath.Glob("testdata/single-webhook/*.json"); err != nil || len(five) < 5 {
		t.Fatalf("want the five recorded single-webhook runs, got %v (%v)", five, err)
	}
	runs, err := filepath.Glob("testdata/*/*.json")
	if err != nil || len(runs) < 14 {
		t.Fatalf("want every recording, got %v (%v)", runs, err)
	}
	for _, path := range runs {
		res := readSweep(t, path)
		got, err := Replay(res.Steps)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, s := range res.Steps {
			want := Of(s).Prediction.Throughput
			if math.Abs(got[i]-want) > 1e-9*want {
				t.Errorf("%s, %d VU: replayed %v, recorded %v", path, s.Load.VUs, got[i], want)
			}
		}
	}
}

// A step without recorded stations (an exporter before they were kept)
// replays as NaN, not as a guess.
func TestReplayWithoutStations(t *testing.T) {
	res := readSweep(t, "testdata/single-webhook/run1.json")
	for i := range res.Steps {
		res.Steps[i].Exporter = []byte(`{"ceiling_per_second":40,"prediction":{"model":"mva","throughput_per_second":30}}`)
	}
	got, err := Replay(res.Steps)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		if !math.IsNaN(x) {
			t.Errorf("step %d: replayed %v without stations, want NaN", i+1, x)
		}
	}
}

func readSweep(t *testing.T, path string) *loadgen.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := loadgen.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}
