package collector

import (
	"context"
	"errors"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// followWorkers tells the Redis sampler the live workers' slots and their
// runner capacity, from its own discovery at start and every
// refreshEvery: the sampler needs them between scrapes, and a scrape
// changes nothing a later reading sees.
func (c *Collector) followWorkers(ctx context.Context) {
	if c.cfg.Sampler == nil || c.cfg.Platform == nil {
		return
	}
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		c.tellSampler(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tellSampler discovers once; a failed discovery leaves the sampler's
// figures as they were, a partial one uses what it read.
func (c *Collector) tellSampler(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, refreshEvery/3)
	defer cancel()
	ps, err := c.cfg.Platform.Discover(ctx)
	var partial PartialError
	if err != nil && !errors.As(err, &partial) {
		return
	}
	t := c.pair(ps)
	slots := 0
	for _, w := range t.Workers {
		if w.Worker.Role == topology.RoleWorker {
			slots += w.Worker.Settings.Concurrency.Value
		}
	}
	limit, _ := runnerCapacity(t.Workers)
	c.cfg.Sampler.SetSlots(slots)
	c.cfg.Sampler.SetRunnerLimit(limit)
}
