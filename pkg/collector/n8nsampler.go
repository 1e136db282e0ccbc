package collector

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// n8nSampler holds the latest read of n8n's execution histogram. A delta
// between two reads depends on when they happen, so reads run on their own
// interval in the background (Collector.Run), never on a scrape: every
// scrape between two reads sees the same figures, and scraping changes no
// state.
type n8nSampler struct {
	d    n8nDurations
	wake chan struct{} // the URL changed: read now

	mu     sync.Mutex
	url    string     // where reads go; "" = nowhere
	latest *n8nSample // the last read's outcome
}

// n8nSample is one read's outcome, as a scrape reports it.
type n8nSample struct {
	url      string
	source   SourceResult
	measured *ServiceTime // nil: no mean to use
	skipped  string       // why a mean was left out, for the landing page
}

// newN8nSampler reads url (N8N_METRICS_URL; "" = main's, from the last
// gather) through client; noHistory: never use n8n's all-time mean (its
// past is not known clean); window spans the runner time's reads (0 =
// runnerWindow).
func newN8nSampler(client *http.Client, noHistory bool, url string, window time.Duration) *n8nSampler {
	return &n8nSampler{d: n8nDurations{client: client, noHistory: noHistory, runs: histRuns{span: window}}, url: url, wake: make(chan struct{}, 1)}
}

// point aims the reads at url (main's /metrics as the background
// discovery found it), at once when it moved.
func (s *n8nSampler) point(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if url != s.url {
		s.url = url
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// read is the latest read of url, or nil; it changes nothing (a scrape
// calls it, and the background discovery points the sampler).
func (s *n8nSampler) read(url string) *n8nSample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if url == "" || s.latest == nil || s.latest.url != url {
		return nil
	}
	return s.latest
}

func (s *n8nSampler) target() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

func (s *n8nSampler) keep(smp n8nSample) {
	s.mu.Lock()
	s.latest = &smp
	s.mu.Unlock()
}

// Run owns the samplers until ctx ends: the Redis sampler on its
// interval, the CPU demand counters every CPU.Interval, the workers every
// refreshEvery, and n8n's histogram every N8nSampleInterval and at once
// when the discovery finds main at a new URL.
func (c *Collector) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if c.cfg.Sampler != nil && !c.cpuDrivesSampler() { // after New installed its gate
		wg.Go(func() { c.cfg.Sampler.Run(ctx) })
	}
	if c.cpu != nil {
		wg.Go(func() { c.cpu.run(ctx) })
	}
	if c.remote != nil {
		wg.Go(func() { c.remote.run(ctx, c.cfg.Timeout) })
	}
	wg.Go(func() { c.followWorkers(ctx) })
	t := time.NewTicker(c.cfg.N8nSampleInterval)
	defer t.Stop()
	for {
		select { // this read serves a URL change already made
		case <-c.n8n.wake:
		default:
		}
		c.sampleN8n(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.n8n.wake:
		}
	}
}

// cpuDrivesSampler says whether the CPU sampler's tick takes the Redis
// sampler's readings (it counts executions through it), so that the
// sampler needs no loop of its own.
func (c *Collector) cpuDrivesSampler() bool {
	return c.cpu != nil && c.cfg.Sampler != nil && c.cpu.cfg.Executions == ExecutionCounter(c.cfg.Sampler)
}

// sampleN8n reads the histogram once, stamped now. A delta is used only if
// nothing says its executions waited for a runner: jobs waiting in Redis
// without a probe, or a runner saturated since they can have started.
func (c *Collector) sampleN8n(ctx context.Context, now time.Time) {
	url := c.n8n.target()
	if url == "" {
		return
	}
	dirty := c.n8nDirty(ctx)
	smp := n8nSample{url: url}
	smp.source = timed(ctx, "n8n", c.cfg.Timeout, func(ctx context.Context) error {
		d, note, err := c.n8n.d.read(ctx, url, dirty, c.lastSaturated(now), now)
		switch {
		case err == nil && d > 0:
			smp.measured = &ServiceTime{Stage: StageJob, Source: SourceN8n, Time: d, Note: note}
		case err == nil && note != "":
			smp.skipped = "job stage from n8n: " + note
		}
		return err
	})
	c.n8n.keep(smp)
}
