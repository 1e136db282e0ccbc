package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
)

// The lab's one runner, behind the exporter's in-process probe.
const labRunner = "n8n-lab-runner-1-1"

// stateReading is the worker's runner state as one scrape published it.
type stateReading struct {
	at    time.Time
	state string
}

type stateReadings []stateReading

// first is when state was first read (zero: never).
func (rs stateReadings) first(state string) time.Time {
	for _, r := range rs {
		if r.state == state {
			return r.at
		}
	}
	return time.Time{}
}

// since are the readings at or after t.
func (rs stateReadings) since(t time.Time) stateReadings {
	for i, r := range rs {
		if !r.at.Before(t) {
			return rs[i:]
		}
	}
	return nil
}

// before are the readings before t.
func (rs stateReadings) before(t time.Time) stateReadings {
	for i, r := range rs {
		if !r.at.Before(t) {
			return rs[:i]
		}
	}
	return rs
}

// readState is the worker's runner state one scrape of metrics reads: the
// state whose n8n_worker_runner_state series is 1 ("" when none is, or the
// scrape failed).
func readState(metrics string) string {
	s, err := fetchScrape(metrics)
	if err != nil {
		return ""
	}
	for _, x := range s.find("n8n_worker_runner_state") {
		if x.value == 1 {
			return x.labels["state"]
		}
	}
	return ""
}

// pollState reads n8n_worker_runner_state every interval until ctx ends,
// and sends the readings: the state whose series is 1, stamped when the
// scrape answered.
func pollState(ctx context.Context, metrics string, every time.Duration) <-chan stateReadings {
	return poll[stateReadings](ctx, 0, every, func() (stateReading, bool) {
		state := readState(metrics)
		return stateReading{at: time.Now(), state: state}, state != ""
	})
}

// underLoad runs 2 closed-loop VUs of 1 s Code tasks until the returned
// stop is called: one runs while the other waits for the one slot.
func underLoad(webhook string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		lab.ClosedLoop(ctx, webhook, lab.BenchBody(1000, 0), 2, 0, 5*time.Minute)
	}()
	return func() { cancel(); <-done }
}

// runnerFrozen: the runner's container is paused (its processes frozen,
// its websocket still open) while it runs a task. The probe sees a
// connected runner holding work that sends nothing, so the state is
// unresponsive once the silence passes its offer validity (n8n: 5 to
// 5.5 s) plus the recent mean task time, 1 s, before a request sent at
// the freeze could time out (8 s), and it never reads no_runner. It runs
// before its lab's 3 s tasks: the probe's 30 s task mean then holds 1 s
// tasks alone (a longer task there would push the state past the
// timeout).
func runnerFrozen(t *testing.T, metrics, webhook string) {
	const timeout = 8 * time.Second
	stop := underLoad(webhook)
	defer stop()
	time.Sleep(5 * time.Second) // a few 1 s tasks done: the probe's mean is theirs
	ctx, cancel := context.WithCancel(context.Background())
	states := pollState(ctx, metrics, 250*time.Millisecond)
	time.Sleep(2 * time.Second)
	docker(t, "pause", labRunner)
	frozen := time.Now()
	unpaused := false
	defer func() {
		if !unpaused {
			docker(t, "unpause", labRunner)
		}
	}()
	time.Sleep(timeout + time.Second)
	docker(t, "unpause", labRunner)
	unpaused = true
	cancel()
	after := (<-states).since(frozen)
	at := after.first(string(collector.RunnerUnresponsive))
	t.Logf("frozen: runner state unresponsive %v after the pause", at.Sub(frozen).Round(time.Millisecond))
	if at.IsZero() || at.Sub(frozen) >= timeout {
		t.Errorf("paused runner: state %v, want unresponsive within %v of the pause", after, timeout)
	}
	if n := after.first(string(collector.RunnerNone)); !n.IsZero() {
		t.Errorf("paused runner read no_runner %v after the pause: its connection is open", n.Sub(frozen))
	}
}

// runnerStopped: the runner's container is stopped under load. Its
// websocket closes, so the state is no_runner within 5 s, whatever it read
// before; the runner is started again, and runnerStopped returns once the
// state reads ok.
func runnerStopped(t *testing.T, metrics, webhook string) {
	time.Sleep(5 * time.Second) // the frozen task's requests end
	stop := underLoad(webhook)
	defer stop()
	time.Sleep(5 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	states := pollState(ctx, metrics, 250*time.Millisecond)
	stopped := time.Now()
	started := false
	defer func() {
		if !started {
			docker(t, "start", labRunner)
		}
	}()
	docker(t, "stop", "-t", "5", labRunner)
	time.Sleep(6 * time.Second)
	restart := time.Now()
	docker(t, "start", labRunner)
	started = true
	stop()
	waitState(t, metrics, collector.RunnerOK, time.Minute)
	cancel()
	after := (<-states).since(stopped).before(restart)
	at := after.first(string(collector.RunnerNone))
	t.Logf("stopped: runner state no_runner %v after docker stop began", at.Sub(stopped).Round(time.Millisecond))
	if at.IsZero() || at.Sub(stopped) > 5*time.Second {
		t.Errorf("stopped runner: states %v, want no_runner within 5 s", after)
	}
	if !at.IsZero() {
		for _, r := range after.since(at) {
			if r.state != string(collector.RunnerNone) {
				t.Errorf("stopped runner read %s %v after the stop, after no_runner", r.state, r.at.Sub(stopped))
				break
			}
		}
	}
}

// waitState polls n8n_worker_runner_state until it reads want, and fails
// the test at the timeout.
func waitState(t *testing.T, metrics string, want collector.RunnerState, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for ctx.Err() == nil {
		if readState(metrics) == string(want) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("runner state never read %s within %v", want, timeout)
}
