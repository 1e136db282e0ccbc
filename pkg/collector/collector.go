package collector

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Discoverer lists a platform's n8n processes (dockerstats.Client).
type Discoverer interface {
	Discover(ctx context.Context) ([]topology.Process, error)
}

// FullDiscoverer is a platform that also lists the objects holding n8n
// processes it left out, with why (kube.Platform: pending, terminating and
// crash-looping pods).
type FullDiscoverer interface {
	DiscoverAll(ctx context.Context) ([]topology.Process, []topology.NotCounted, error)
}

// MemoryReader reads processes' memory; errs[i] is ps[i]'s failure
// (dockerstats.CgroupMemory, or dockerstats.Client through the stats API).
type MemoryReader interface {
	ReadMemory(ctx context.Context, ps []topology.Process) (mem []topology.Memory, errs []error)
}

// MemorySource is a MemoryReader and its source label.
type MemorySource struct {
	Name   string
	Reader MemoryReader
}

// Config wires the sources; a nil source is off and not reported.
type Config struct {
	Platform     Discoverer // finds the processes; nil = no discovery
	PlatformName string     // its source label, e.g. "docker"
	// Memory is tried in order, each source for the running processes the
	// ones before could not read. Empty: no memory is read.
	Memory        []MemorySource
	Queue         *queue.Reader
	Sampler       *queue.Sampler
	N8nMetricsURL string  // "" = discover from the main container
	Probes        []Probe // in-process broker probes
	// ScrapeProbes reads the /metrics of every discovered probe sidecar
	// that a worker's runner reaches its broker through, at scrape time.
	ScrapeProbes bool
	ServiceTime  time.Duration // EXPORTER_SERVICE_TIME: overrides both stages
	Timeout      time.Duration // per source
	Logger       *slog.Logger
}

// Collector is the prometheus.Collector and the landing page's data source.
type Collector struct {
	cfg        Config
	n8n        n8nDurations
	probeNodes []topology.Process // the in-process probes, for pairing
	remote     *remoteProbes      // nil unless ScrapeProbes
	lastSat    atomic.Int64       // unix nanos a runner was last seen saturated
}

// New builds a Collector.
func New(cfg Config) *Collector {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PlatformName == "" {
		cfg.PlatformName = "platform"
	}
	c := &Collector{cfg: cfg, probeNodes: probeNodes(cfg.Probes, cfg.Logger)}
	if cfg.ScrapeProbes {
		c.remote = &remoteProbes{client: &http.Client{Timeout: cfg.Timeout}}
	}
	probes := len(cfg.Probes) > 0 || cfg.ScrapeProbes
	// With probes the runner's past saturation is unknown, so n8n's
	// all-time mean is not trusted; only deltas judged clean are.
	c.n8n = n8nDurations{client: &http.Client{Timeout: cfg.Timeout}, noHistory: probes}
	if cfg.Sampler != nil && probes {
		cfg.Sampler.SetGate(c.runnerSaturated)
	}
	return c
}

// Gather asks every source once and evaluates the capacity model.
func (c *Collector) Gather(ctx context.Context) *Report {
	r := &Report{At: time.Now()}
	var queueResult *SourceResult
	var depth map[string]int64
	var wg sync.WaitGroup
	if c.cfg.Queue != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := timed(ctx, "redis", c.cfg.Timeout, func(ctx context.Context) (err error) {
				depth, err = c.cfg.Queue.Depth(ctx)
				return err
			})
			queueResult = &res
		}()
	}
	if c.cfg.Platform != nil {
		c.discover(ctx, r)
		c.readMemory(ctx, r)
	}
	if c.remote != nil {
		c.remote.scrape(ctx, r, c.cfg.Timeout)
	}
	wg.Wait()
	if queueResult != nil {
		r.addSource(*queueResult)
		r.Queue = depth
	}
	c.measureJobTime(ctx, r) // after the depth: jobs waiting now gate n8n's delta
	c.measureTaskTime(r)
	c.evaluate(r)
	c.logDown(r)
	return r
}

func (c *Collector) discover(ctx context.Context, r *Report) {
	r.addSource(timed(ctx, c.cfg.PlatformName, c.cfg.Timeout, func(ctx context.Context) (err error) {
		if full, ok := c.cfg.Platform.(FullDiscoverer); ok {
			r.Processes, r.NotCounted, err = full.DiscoverAll(ctx)
			return err
		}
		r.Processes, err = c.cfg.Platform.Discover(ctx)
		return err
	}))
	r.Topology = c.pair(r.Processes)
	if c.cfg.Sampler != nil {
		slots := 0
		for _, w := range r.Topology.Workers {
			slots += w.Worker.Settings.Concurrency.Value
		}
		c.cfg.Sampler.SetSlots(slots)
	}
}

func (c *Collector) logDown(r *Report) {
	for _, s := range r.Sources {
		if !s.Up {
			c.cfg.Logger.Warn("source down", "source", s.Name, "err", s.Err)
		}
	}
}
