package e2e

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

// TestRunnerCeilingFollowsTheWorkload: worker 15, runner limit 5, through
// the probe, the lab's 30 s windows. 10 VUs of 1 s tasks for 30 s, then 5
// VUs of 15 s tasks for a minute. The probe's task mean spans the tasks
// that ended in the demand window, and the first 1 s load has drained
// when the 15 s tasks start, so one window after the switch (plus the
// exporter's 1 s sampler and this test's 1 s reads: 5 s allowed) the
// runner slots' ceiling is 5 ÷ 15 s within 10 %, and stays there; three
// runs read it from 32 s on. A mean of the last tasks instead of a window read
// 8.5/s against 0.4/s measured. loadctl's engine measures what the 15 s
// tasks ran (four cycles a VU); the last reading's ceiling is within 10 %
// of it, and the runner slots bind.
func TestRunnerCeilingFollowsTheWorkload(t *testing.T) {
	eps := upLab(t, map[string]string{"LAB_WORKER_CONCURRENCY": "15", "LAB_RUNNER_LIMITS": "5", "LAB_PROBE": "1"})
	hook, metrics := must(t, eps, "webhook"), must(t, eps, "exporter-metrics")
	const window, task = 30 * time.Second, 15 * time.Second
	const limit, slots = 5.0, "slots:runner:n8n-lab-worker-1"

	short := lab.ClosedLoop(context.Background(), hook, lab.BenchBody(1000, 0), 10, 3*time.Second, window)
	before := scrapeURL(t, metrics)
	was := before.one(t, "n8n_resource_ceiling_executions_per_second", "resource", slots)
	t.Logf("1 s tasks: %.2f/s measured (%d failed), runner slots' ceiling %.3f/s", short.PerSec, short.Failed, was)
	if math.Abs(was/(limit/1.01)-1) > 0.10 {
		t.Fatalf("1 s tasks: runner slots' ceiling %.3f/s, want 5 ÷ 1.01 s within 10 %%", was)
	}

	ctx, cancel := context.WithCancel(context.Background())
	reads := readCeilings(ctx, metrics, slots)
	long := lab.ClosedLoop(context.Background(), hook, lab.BenchBody(int(task/time.Millisecond), 0), 5, 0, time.Minute)
	cancel()
	got := <-reads
	for _, f := range []lab.DriveResult{short, long} {
		if f.Failed != 0 {
			t.Errorf("%d failed requests, e.g. %v", f.Failed, f.Errors)
		}
	}
	due := window + 5*time.Second
	followed, late := followedAt(got, limit/task.Seconds(), 0.10)
	t.Logf("15 s tasks: %.3f/s measured (%s); runner slots' ceiling each second after the switch: %s", long.PerSec, long.Basis, got)
	figure(t, "seconds from the switch to a runner ceiling of 5 ÷ 15 s", fmt.Sprintf("≤ %.0f", due.Seconds()), followed.Seconds(), followed <= due && late == "")
	if followed > due || late != "" {
		t.Errorf("runner slots' ceiling reached 5 ÷ 15 s ± 10 %% at %v after the switch, want by %v and to stay%s", followed.Round(time.Second), due, late)
	}
	if len(got) == 0 {
		t.Fatalf("no reading of %s's ceiling after the switch", slots)
	}
	if got[0].ceiling < 2*limit/task.Seconds() {
		t.Errorf("at the switch the ceiling read %.3f/s already: the check cannot tell a held mean from a followed one", got[0].ceiling)
	}
	last := got[len(got)-1]
	ratio := long.PerSec / last.ceiling
	figure(t, "15 s tasks: measured ÷ ceiling", "1 ± 0.10", ratio, math.Abs(ratio-1) <= 0.10)
	if math.Abs(ratio-1) > 0.10 || last.binding != slots {
		t.Errorf("15 s tasks: measured %.3f/s against a last ceiling of %.3f/s (%.3f) set by %s, want within 10 %% and %s", long.PerSec, last.ceiling, ratio, last.binding, slots)
	}
}

// ceilingRead is one reading of a resource's ceiling, and the cluster's
// binding resource then.
type ceilingRead struct {
	after   time.Duration
	ceiling float64
	binding string
}

func (r ceilingRead) String() string { return fmt.Sprintf("%.0fs %.3f", r.after.Seconds(), r.ceiling) }

// readCeilings reads resource's ceiling once a second until ctx ends, and
// returns the readings that had it.
func readCeilings(ctx context.Context, metrics, resource string) <-chan []ceilingRead {
	start := time.Now()
	return poll[[]ceilingRead](ctx, 0, time.Second, func() (ceilingRead, bool) {
		s, err := fetchScrape(metrics)
		if err != nil {
			return ceilingRead{}, false
		}
		c := s.find("n8n_resource_ceiling_executions_per_second", "resource", resource)
		if len(c) != 1 {
			return ceilingRead{}, false
		}
		return ceilingRead{time.Since(start), c[0].value, bindingOf(s)}, true
	})
}

// bindingOf names the resources whose n8n_cluster_bottleneck is 1.
func bindingOf(s scrape) string {
	var on []string
	for _, x := range s.find("n8n_cluster_bottleneck") {
		if x.value == 1 {
			on = append(on, x.labels["resource"])
		}
	}
	return strings.Join(on, ",")
}

// followedAt is the time of the first reading from which every reading is
// within tol of want, and "" when the readings end there; otherwise the
// last reading's time and what the readings did.
func followedAt(reads []ceilingRead, want, tol float64) (time.Duration, string) {
	from := -1
	for i, r := range reads {
		if math.Abs(r.ceiling/want-1) > tol {
			from = -1
		} else if from < 0 {
			from = i
		}
	}
	switch {
	case len(reads) == 0:
		return 0, ": no reading"
	case from < 0:
		return reads[len(reads)-1].after, fmt.Sprintf(": the last reading was %.3f/s against %.3f/s", reads[len(reads)-1].ceiling, want)
	}
	return reads[from].after, ""
}

func TestFollowedAt(t *testing.T) {
	at := func(s int, c float64) ceilingRead {
		return ceilingRead{after: time.Duration(s) * time.Second, ceiling: c}
	}
	reads := []ceilingRead{at(0, 5), at(1, 0.34), at(2, 2), at(3, 0.35), at(4, 0.33)}
	if got, late := followedAt(reads, 1.0/3, 0.1); got != 3*time.Second || late != "" {
		t.Errorf("followed: %v %q, want 3s: the reading at 1 s left the band again", got, late)
	}
	if got, late := followedAt(append(reads, at(5, 1)), 1.0/3, 0.1); got != 5*time.Second || !strings.Contains(late, "1.000/s") {
		t.Errorf("left at the end: %v %q, want the last reading named", got, late)
	}
	if _, late := followedAt(nil, 1, 0.1); late == "" {
		t.Error("no reading: want it said")
	}
}
