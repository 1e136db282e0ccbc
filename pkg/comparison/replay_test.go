package comparison

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// The recordings in testdata/queue-single-webhook-2.41 are five
// back-to-back runs of the scenarios' queue-single-webhook case on the lab
// (n8n 2.41.1, 1, 2 and 32 VUs, 15 s steps after 5 s warm-ups, 15 s
// exporter windows, each process's JavaScript thread read apart), made by
// this package's Hook: each thread's station at its cores alone
// (capacity.Bounds.Stations), and each slot held at most the one-request
// latency (capacity.Network.HeldAtMost). They read +0.5 % to +3.3 % at
// 2 VU and −2.0 % to +2.3 % at 32 VU. Held at the share it ran under
// load, a thread counted its wait for a core twice (one run put the 2-VU
// step at −14.8 %); a slot held as long as under load counted its
// execution's waits twice (five runs before this Hook: −6.9 % to −1.7 %
// at 32 VU).
const currentRecordings = "testdata/queue-single-webhook-2.41/*.json"

// On the 2.41.1 recordings the MVA is within 10 % of the measured
// throughput at every step.
func TestMVAWithinTenPercentOnTheRecordings(t *testing.T) {
	runs, err := filepath.Glob(currentRecordings)
	if err != nil || len(runs) < 5 {
		t.Fatalf("want five recorded runs, got %v (%v)", runs, err)
	}
	for _, path := range runs {
		steps := readSweep(t, path).Steps
		got := replay(t, path, steps)
		for i, s := range steps {
			if dev := got[i]/s.Figures.Throughput - 1; !(math.Abs(dev) <= 0.10) {
				t.Errorf("%s, %d VU: predicted %.3f/s, measured %.3f/s (%+.1f %%), want within 10 %%", path, s.Load.VUs, got[i], s.Figures.Throughput, 100*dev)
			}
		}
	}
}

// Replay reproduces, step by step, the prediction the Hook recorded while
// each sweep ran.
func TestReplayMatchesTheRecording(t *testing.T) {
	runs, err := filepath.Glob(currentRecordings)
	if err != nil || len(runs) < 5 {
		t.Fatalf("want five recorded runs, got %v (%v)", runs, err)
	}
	for _, path := range runs {
		res := readSweep(t, path)
		got := replay(t, path, res.Steps)
		for i, s := range res.Steps {
			if want := Of(s).Prediction.Throughput; math.Abs(got[i]-want) > 1e-9*want {
				t.Errorf("%s, %d VU: replayed %v, recorded %v", path, s.Load.VUs, got[i], want)
			}
		}
	}
}

// The older recordings were made by earlier Hooks on n8n 2.23.2 (the
// exporter then read neither the host's background nor the threads
// apart); they are replayed, not matched. testdata/single-webhook holds
// five back-to-back sweeps (1, 2 and 4 VUs, 25 s steps), whose 2-VU step
// read +15 % to +21 % on a warm lab; the others are one run each of the
// shipped specs. On the CPU-bound workflow the worker slot's hold under
// load (456 ms at 8 VU, the response less main's share) lifted the
// one-request latency to itself, and the MVA added the waits it holds
// again: −15.8 %. Held at most the latency solved at 2 VU, it reads
// within 5 %; so do runner-limit's steps above its lowest (within 2 %)
// and ten-webhooks' 30-VU step, and the scenarios' 1-2-32 VU sweep within
// 10 %. The lowest step of each is left out: its latency is its own.
func TestReplayOfEarlierRecordings(t *testing.T) {
	for path, within := range map[string]float64{"testdata/cpu-bound/run1.json": 0.05, "testdata/runner-limit-5/run1.json": 0.02,
		"testdata/ten-webhooks/run1.json": 0.05, "testdata/single-webhook-32/run1.json": 0.10} {
		steps := readSweep(t, path).Steps
		got := replay(t, path, steps)
		for i, s := range steps {
			if i == 0 {
				continue // the lowest step: its own latency, held up to the slots' hold
			}
			if dev := got[i]/s.Figures.Throughput - 1; !(math.Abs(dev) <= within) {
				t.Errorf("%s, %d VU: replayed %.3f/s, measured %.3f/s (%+.1f %%), want within %.0f %%", path, s.Load.VUs, got[i], s.Figures.Throughput, 100*dev, 100*within)
			}
		}
	}
}

func replay(t *testing.T, path string, steps []loadgen.StepResult) []float64 {
	t.Helper()
	got, err := Replay(steps)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return got
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
