package comparison

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
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
// at 32 VU). testdata/cpu-bound-2.41-share holds three back-to-back runs
// of the cpu-bound spec (1, 2 and 8 VUs) by the Hook that holds a runner's
// thread at the share it ran: −0.2 % to +0.7 % at 2 VU, −0.9 % to +1.6 %
// at 8 VU.
var currentRecordings = map[string]int{
	"testdata/queue-single-webhook-2.41/*.json": 5,
	"testdata/cpu-bound-2.41-share/*.json":      3,
}

// recordings lists the current recordings, each set whole.
func recordings(t *testing.T) []string {
	t.Helper()
	var all []string
	for glob, want := range currentRecordings {
		all = append(all, runsOf(t, glob, want)...)
	}
	slices.Sort(all)
	return all
}

// runsOf lists the recorded runs glob matches: want of them.
func runsOf(t *testing.T, glob string, want int) []string {
	t.Helper()
	runs, err := filepath.Glob(glob)
	if err != nil || len(runs) != want {
		t.Fatalf("%s: want %d recorded runs, got %v (%v)", glob, want, runs, err)
	}
	return runs
}

// On the 2.41.1 recordings the MVA is within 10 % of the measured
// throughput at every step.
func TestMVAWithinTenPercentOnTheRecordings(t *testing.T) {
	for _, path := range recordings(t) {
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
// each sweep ran, held at the step's recorded ceiling (the Hook that
// recorded them did not hold it: their 32-VU steps rose 4.6 % to 5.7 % past
// it).
func TestReplayMatchesTheRecording(t *testing.T) {
	for _, path := range recordings(t) {
		res := readSweep(t, path)
		got := replay(t, path, res.Steps)
		for i, s := range res.Steps {
			c := Of(s)
			if want := min(c.Prediction.Throughput, c.Ceiling); math.Abs(got[i]-want) > 1e-9*want {
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

// testdata/cpu-bound-2.41 holds two back-to-back runs of the cpu-bound
// spec (n8n 2.41.1, 2 and 8 VUs, 15 s steps and windows) made by a Hook
// that waited the whole demand of the task in service at the runner's
// thread: its 2-VU step read −6.0 % and −6.7 %. The runner's thread runs
// each task's 10 million rounds to their end, so a task that finds another
// running waits for the rest of it; with the runner's thread run to end
// (capacity.Station.RunToEnd, as Bounds.Stations now marks it) the same
// steps replay within 3 %.
func TestCPUBoundRecordingsRunToEnd(t *testing.T) {
	for _, path := range runsOf(t, "testdata/cpu-bound-2.41/*.json", 2) {
		steps := readSweep(t, path).Steps
		before, after := replay(t, path, steps), replay(t, path, runToEnd(t, steps))
		for i, s := range steps {
			x := s.Figures.Throughput
			if dev := after[i]/x - 1; !(math.Abs(dev) <= 0.03) {
				t.Errorf("%s, %d VU: %.3f/s with the runner's thread run to end, measured %.3f/s (%+.1f %%), want within 3 %%", path, s.Load.VUs, after[i], x, 100*dev)
			}
			if s.Load.VUs == 2 && !(before[i]/x-1 < -0.05) {
				t.Errorf("%s, 2 VU: %.3f/s as recorded, measured %.3f/s: want over 5 %% below, as recorded", path, before[i], x)
			}
		}
	}
}

// runToEnd marks each recorded runner-thread station as run to end.
func runToEnd(t *testing.T, steps []loadgen.StepResult) []loadgen.StepResult {
	t.Helper()
	return restation(t, steps, func(c *Comparison) bool {
		marked := false
		for j, s := range c.Prediction.Stations {
			if strings.HasSuffix(s.Name, "/runner") && !s.RunToEnd {
				c.Prediction.Stations[j].RunToEnd, marked = true, true
			}
		}
		return marked
	})
}

// atShare puts each recorded runner-thread station that set its step's
// ceiling at the share it ran (its demand × that ceiling), and takes its
// demand out of cpu:host.
func atShare(t *testing.T, steps []loadgen.StepResult) []loadgen.StepResult {
	t.Helper()
	return restation(t, steps, func(c *Comparison) bool {
		st := c.Prediction.Stations
		k := slices.IndexFunc(st, func(s Station) bool { return s.Name == c.Binding && s.RunToEnd })
		host := slices.IndexFunc(st, func(s Station) bool { return s.Name == capacity.HostCPU })
		if k < 0 || host < 0 {
			return false
		}
		st[k].Servers = st[k].Demand * c.Ceiling
		st[host].Demand -= st[k].Demand
		return true
	})
}

// restation edits each step's recorded stations with edit, which says
// whether it changed them; at least one step must change.
func restation(t *testing.T, steps []loadgen.StepResult, edit func(*Comparison) bool) []loadgen.StepResult {
	t.Helper()
	out := slices.Clone(steps)
	changed := 0
	for i := range out {
		c := Of(out[i])
		if c == nil || c.Prediction == nil || !edit(c) {
			continue
		}
		changed++
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out[i].Exporter = raw
	}
	if changed == 0 {
		t.Fatal("no recorded station changed")
	}
	return out
}

// testdata/cpu-bound-2.41-alone holds three back-to-back runs of the
// cpu-bound spec at 1, 2 and 8 VUs (n8n 2.41.1), made by a Hook that held
// the runner's thread at its cores alone and counted its CPU at cpu:host
// as well. At 2 VU, where the runner's thread set the ceiling, they read
// −5.5 % to −7.1 %. The thread holds each task through the task's waits
// for a core; with its station at the share it ran and its CPU out of
// cpu:host, as Bounds.Stations now builds them, the same steps replay
// within 4 % (+0.8 %, +3.3 % and +1.4 %, each held at the ceiling), and
// the other steps within 10 %.
func TestCPUBoundRecordingsRunnerAtItsShare(t *testing.T) {
	for _, path := range runsOf(t, "testdata/cpu-bound-2.41-alone/*.json", 3) {
		steps := readSweep(t, path).Steps
		before, after := replay(t, path, steps), replay(t, path, atShare(t, steps))
		for i, s := range steps {
			x, within := s.Figures.Throughput, 0.10
			if s.Load.VUs == 2 {
				within = 0.04
				if !(before[i]/x-1 < -0.05) {
					t.Errorf("%s, 2 VU: %.3f/s as recorded, measured %.3f/s: want over 5 %% below, as recorded", path, before[i], x)
				}
			}
			if dev := after[i]/x - 1; !(math.Abs(dev) <= within) {
				t.Errorf("%s, %d VU: %.3f/s with the runner's thread at its share, measured %.3f/s (%+.1f %%), want within %.0f %%", path, s.Load.VUs, after[i], x, 100*dev, 100*within)
			}
		}
	}
}
