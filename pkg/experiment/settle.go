package experiment

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// settle polls the exporter until it reports the wanted shape, no task is
// still running and, in queue mode, no job is active or waiting in Redis
// (a cancelled load leaves executions running to their end, and a
// restarted runner leaves jobs waiting for its slots with none running;
// they would inflate the next baseline). The
// topology it returns is the matching one; the error says what still
// differed (or why the exporter did not answer) when time ran out. waiting,
// when set, hears the reason to wait each time it changes.
func settle(ctx context.Context, client *http.Client, exporter string, want Shape, timeout, poll time.Duration, waiting func(string)) (Topology, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(poll)
	defer t.Stop()
	last := "no answer yet"
	for {
		sc, err := (&snapshot.Reader{URL: exporter, Client: client}).Read(ctx)
		if err == nil {
			top := TopologyOf(sc)
			ok, diff := want.Matches(top)
			if n, _ := sc.TasksRunning(); ok && n > 0 {
				ok, diff = false, fmt.Sprintf("%g tasks still running", n)
			}
			if n := sc.Queue["active"] + sc.Queue["waiting"]; ok && n > 0 && consumesQueue(sc) {
				ok, diff = false, fmt.Sprintf("%g jobs still active or waiting in Redis", n)
			}
			if ok {
				return top, nil
			}
			if diff != last && waiting != nil {
				waiting(diff)
			}
			last = diff
		} else if ctx.Err() == nil { // a scrape cut by our deadline says nothing new
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return Topology{}, fmt.Errorf("the exporter did not report the case's shape within %v: %s", timeout, last)
		case <-t.C:
		}
	}
}

// consumesQueue says whether some worker takes jobs from Redis: one with
// a slot limit. Regular-mode mains (no limit) take none, so jobs a
// removed queue-mode worker left there never drain and do not matter.
func consumesQueue(sc *snapshot.Snapshot) bool {
	for _, w := range sc.Workers {
		if !w.Unlimited {
			return true
		}
	}
	return false
}
