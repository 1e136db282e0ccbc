package collector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue/queuetest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// poolShape is the lab's worker with three more in two worker pools:
// "heavy" (two workers) and "light" (one).
func poolShape(t *testing.T) *Report {
	t.Helper()
	ps := []topology.Process{fixtureProcess(t, "inspect-lab-main.json"), fixtureProcess(t, "inspect-lab-worker-1.json")}
	for i, pool := range []string{"light", "heavy", "heavy"} {
		p := fixtureProcess(t, "inspect-internal-worker.json")
		p.ID, p.Name = p.ID+string(rune('a'+i)), p.Name+"-"+string(rune('a'+i))
		p.Settings.Pool = topology.Of(pool)
		ps = append(ps, p)
	}
	return &Report{Processes: ps, Topology: topology.Pair(ps)}
}

// Each pool's queue (jobs-<pool>) is read from Redis: the pools are
// numbered in the order of their names, each line on / names its workers
// and jobs, and neither the metrics nor the page name a pool.
func TestPoolQueues(t *testing.T) {
	rd := queuetest.StartMemory(t)
	ctx := context.Background()
	rd.Client.LPush(ctx, "bull:jobs-heavy:wait", "1", "2", "3")
	rd.Client.LPush(ctx, "bull:jobs-heavy:active", "4", "5")
	rd.Client.LPush(ctx, "bull:jobs-light:active", "6")
	rd.Client.LPush(ctx, "bull:jobs:wait", "7")
	r := poolShape(t)
	New(Config{Queue: queue.NewReader(rd.Client, "bull")}).readPools(ctx, r)
	if len(r.Pools) != 2 || r.Pools[0].Label() != "1" || strings.Join(r.Pools[0].Workers, " ") != "fx-internal-worker-b fx-internal-worker-c" {
		t.Fatalf("pools %+v, want heavy's two workers as pool 1, then light", r.Pools)
	}
	hasLines(t, roleLines(r),
		"worker pool 1 (fx-internal-worker-b, fx-internal-worker-c): 3 waiting, 2 active, 0 delayed in its queue; its ceiling is not modelled",
		"worker pool 2 (fx-internal-worker-a): 0 waiting, 1 active, 0 delayed in its queue")
	want := `
# HELP n8n_queue_pool_jobs Bull jobs per state in each worker pool's queue (jobs-<pool>), read from Redis at scrape time; pool numbers the pools from 1 in the order of their names.
# TYPE n8n_queue_pool_jobs gauge
n8n_queue_pool_jobs{pool="1",state="active"} 2
n8n_queue_pool_jobs{pool="1",state="completed"} 0
n8n_queue_pool_jobs{pool="1",state="delayed"} 0
n8n_queue_pool_jobs{pool="1",state="failed"} 0
n8n_queue_pool_jobs{pool="1",state="paused"} 0
n8n_queue_pool_jobs{pool="1",state="waiting"} 3
n8n_queue_pool_jobs{pool="2",state="active"} 1
n8n_queue_pool_jobs{pool="2",state="completed"} 0
n8n_queue_pool_jobs{pool="2",state="delayed"} 0
n8n_queue_pool_jobs{pool="2",state="failed"} 0
n8n_queue_pool_jobs{pool="2",state="paused"} 0
n8n_queue_pool_jobs{pool="2",state="waiting"} 0
`
	if err := testutil.CollectAndCompare(reportCollector{r}, strings.NewReader(want), "n8n_queue_pool_jobs"); err != nil {
		t.Error(err)
	}
	if src := sourceNamed(r, "pools"); src == nil || !src.Up {
		t.Errorf("source pools %+v, want up", src)
	}
	text := strings.Join(Verdict(r), "\n") + seriesText(t, reportCollector{r}, "")
	for _, name := range []string{"heavy", "light"} {
		if strings.Contains(text, name) {
			t.Errorf("pool %q published:\n%s", name, text)
		}
	}
}

// A Redis that does not answer leaves the pools without depth: the
// source is down, / says the queue could not be read, and no pool series
// is published.
func TestPoolQueuesUnreadable(t *testing.T) {
	rd := queuetest.StartMemory(t)
	rd.Close()
	r := poolShape(t)
	New(Config{Queue: queue.NewReader(rd.Client, "bull"), Timeout: 200 * time.Millisecond}).readPools(context.Background(), r)
	if src := sourceNamed(r, "pools"); src == nil || src.Up || !strings.Contains(src.Err, "pool 1: ") {
		t.Errorf("source pools %+v, want down, naming pool 1", src)
	}
	hasLines(t, roleLines(r), "worker pool 2 (fx-internal-worker-a): its queue could not be read")
	if n := testutil.CollectAndCount(reportCollector{r}, "n8n_queue_pool_jobs"); n != 0 {
		t.Errorf("%d pool series, want none", n)
	}
}

// Without a pool worker no pool is read and no pools source appears.
func TestNoPoolNoRead(t *testing.T) {
	ps := []topology.Process{fixtureProcess(t, "inspect-lab-worker-1.json")}
	r := &Report{Processes: ps, Topology: topology.Pair(ps)}
	New(Config{Queue: queue.NewReader(queuetest.StartMemory(t).Client, "bull")}).readPools(context.Background(), r)
	if r.Pools != nil || sourceNamed(r, "pools") != nil {
		t.Errorf("pools %+v, sources %+v: want none", r.Pools, r.Sources)
	}
}

func sourceNamed(r *Report, name string) *SourceResult {
	for i := range r.Sources {
		if r.Sources[i].Name == name {
			return &r.Sources[i]
		}
	}
	return nil
}
