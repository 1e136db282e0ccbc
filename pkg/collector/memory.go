package collector

import (
	"context"
	"errors"
	"fmt"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
)

// readMemory reads each running container's memory from the cgroup files,
// and only the ones that fail there through the (slow) stats API.
func (c *Collector) readMemory(ctx context.Context, r *Report) {
	r.Memory = map[string]dockerstats.Memory{}
	var rest []dockerstats.Container
	var running []dockerstats.Container
	for _, ct := range r.Containers {
		if ct.Running {
			running = append(running, ct)
		}
	}
	if c.cfg.Cgroup != nil && len(running) > 0 {
		r.addSource(timed(ctx, "cgroup", c.cfg.Timeout, func(context.Context) error {
			var errs []error
			for _, ct := range running {
				m, err := c.cfg.Cgroup.Read(ct)
				if err != nil {
					errs = append(errs, err)
					rest = append(rest, ct)
					continue
				}
				r.Memory[ct.ID] = m
			}
			return summarize(errs, len(running))
		}))
	} else {
		rest = running
	}
	if c.cfg.Stats == nil || len(rest) == 0 {
		return
	}
	r.addSource(timed(ctx, "stats", c.cfg.Timeout, func(ctx context.Context) error {
		mem, errs := c.cfg.Stats.StatsMemory(ctx, rest)
		var failed []error
		for i, ct := range rest {
			if errs[i] != nil {
				failed = append(failed, errs[i])
				continue
			}
			r.Memory[ct.ID] = mem[i]
		}
		return summarize(failed, len(rest))
	}))
}

// summarize keeps one example error and the count.
func summarize(errs []error, of int) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d containers failed, e.g.: %w", len(errs), of, errors.Join(errs[0]))
}
