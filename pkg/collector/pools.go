package collector

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// PoolQueue is the Bull queue of one worker pool (n8n 2.41's jobs-<pool>)
// as read at a scrape. Pools are numbered from 1 in the order of their
// names, which are read to find the queues and never published.
type PoolQueue struct {
	Ordinal int
	Workers []string         // the pool's workers, by instance name, sorted
	Depth   map[string]int64 // jobs per state; nil when the read failed
}

// Label is the pool label value: its ordinal.
func (p PoolQueue) Label() string { return strconv.Itoa(p.Ordinal) }

// poolWorkers groups the pool workers by pool name, the names sorted.
func poolWorkers(pooled []topology.WorkerNode) (names []string, workers map[string][]string) {
	workers = map[string][]string{}
	for _, w := range pooled {
		name := w.Worker.Settings.Pool.Value
		if _, seen := workers[name]; !seen {
			names = append(names, name)
		}
		workers[name] = append(workers[name], w.Worker.InstanceName())
	}
	slices.Sort(names)
	for _, ws := range workers {
		slices.Sort(ws)
	}
	return names, workers
}

// readPools reads each worker pool's queue (source "pools", present only
// where a pool worker runs). A queue that cannot be read keeps no depth.
func (c *Collector) readPools(ctx context.Context, r *Report) {
	names, workers := poolWorkers(r.Topology.Pooled)
	if c.cfg.Queue == nil || len(names) == 0 {
		return
	}
	r.addSource(timed(ctx, "pools", c.cfg.Timeout, func(ctx context.Context) error {
		var failed []string
		for i, name := range names {
			p := PoolQueue{Ordinal: i + 1, Workers: workers[name]}
			d, err := c.cfg.Queue.Pool(name).Depth(ctx)
			if err != nil {
				failed = append(failed, fmt.Sprintf("pool %d: %v", p.Ordinal, err))
			} else {
				p.Depth = d
			}
			r.Pools = append(r.Pools, p)
		}
		if len(failed) > 0 {
			return fmt.Errorf("%s", strings.Join(failed, "; "))
		}
		return nil
	}))
}

// poolLines say what each pool's queue holds, on /.
func poolLines(r *Report) []string {
	var out []string
	for _, p := range r.Pools {
		line := fmt.Sprintf("worker pool %d (%s): ", p.Ordinal, strings.Join(p.Workers, ", "))
		if p.Depth == nil {
			out = append(out, line+"its queue could not be read")
			continue
		}
		out = append(out, line+fmt.Sprintf("%d waiting, %d active, %d delayed in its queue; its ceiling is not modelled",
			p.Depth["waiting"], p.Depth["active"], p.Depth["delayed"]))
	}
	return out
}
