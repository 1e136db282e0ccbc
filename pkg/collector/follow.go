package collector

import (
	"context"
	"errors"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/ticker"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// refreshEvery spaces the collector's own background discoveries: a
// restarted container's CPU is read within about this long. One Docker
// listing (or Kubernetes pod list) and its inspects every 5 s cost less
// than one scrape's gather.
const refreshEvery = 5 * time.Second

// followWorkers tells the background samplers what they follow, from its
// own discovery at start and every refreshEvery: the probe reader the
// sidecars, the CPU sampler the processes to read, the Redis sampler the
// live workers' slots and runner capacity, the execution counter the mode,
// and the n8n sampler main's URL. They need these between scrapes, before
// the first one too.
func (c *Collector) followWorkers(ctx context.Context) {
	if c.cfg.Platform == nil {
		return
	}
	ticker.Every(ctx, refreshEvery, func(time.Time) { c.tellSampler(ctx) })
}

// tellSampler discovers once; a failed discovery leaves the samplers'
// figures as they were, a partial one uses what it read.
func (c *Collector) tellSampler(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	ps, err := c.cfg.Platform.Discover(ctx)
	var partial PartialError
	if err != nil && !errors.As(err, &partial) {
		return
	}
	t := c.pair(ps)
	if c.remote != nil {
		c.remote.aim(t)
	}
	if c.cpu != nil {
		c.cpu.point(ps)
		c.count.follow(t)
	}
	if c.cfg.N8nMetricsURL == "" {
		c.n8n.point(discoverMetricsURL(t.Mains))
	}
	if c.cfg.Sampler == nil {
		return
	}
	slots := 0
	for _, w := range t.Workers {
		if w.Worker.Role == topology.RoleWorker {
			slots += w.Worker.Settings.Concurrency.Value
		}
	}
	limit, _ := runnerCapacity(t)
	c.cfg.Sampler.SetSlots(slots)
	c.cfg.Sampler.SetRunnerLimit(limit)
}
