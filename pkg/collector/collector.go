package collector

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Discoverer lists a platform's n8n processes (dockerstats.Client). It may
// return a PartialError beside the processes it could read.
type Discoverer interface {
	Discover(ctx context.Context) ([]topology.Process, error)
}

// PartialError is what a platform returns beside the processes it did read
// when some it listed could not be read: each error of LeftOut names one
// process left out of that discovery (by name or short ID, never its env).
// The platform's source stays up and the rest of the scrape stands.
type PartialError interface {
	error
	LeftOut() []error
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
	// that a worker's runner reaches its broker through, every second.
	ScrapeProbes bool
	ServiceTime  time.Duration // EXPORTER_SERVICE_TIME: overrides both stages
	Timeout      time.Duration // per source
	Logger       *slog.Logger
	// ScrapeTimeout caps one gather (default 10s); ScrapeTimeoutOffset is
	// taken off Prometheus' scrape-timeout header (0 = none).
	ScrapeTimeout       time.Duration
	ScrapeTimeoutOffset time.Duration
	// N8nSampleInterval spaces the background reads of n8n's histogram
	// (default 5s).
	N8nSampleInterval time.Duration
	// Window is the demand window (the exporter's EXPORTER_SAMPLE_WINDOW,
	// as the job time's and the CPU demands'): the reads of n8n's histogram
	// that the regular-mode runner time is taken over, and the probe
	// sidecars' task mean while tasks end (default 30s).
	Window time.Duration
	// CPU turns on the CPU demands (nil: off); Run samples them in the
	// background.
	CPU *CPUConfig
	// Peers reads the established connections of runners and probes
	// (peers.Containers), so pairing sees which broker each dialled; nil:
	// pairing goes by name alone.
	Peers PeerReader
}

// Collector is the prometheus.Collector and the landing page's data source.
type Collector struct {
	cfg        Config
	n8n        *n8nSampler
	cpu        *cpuSampler       // nil: no CPU demands
	count      *executionCounter // the CPU demands' execution count; nil with cpu
	shared     sharedGather
	probeNodes []topology.Process // the in-process probes, for pairing
	remote     *remoteProbes      // nil unless ScrapeProbes
	lastSat    atomic.Int64       // unix nanos a runner was last seen saturated
	leftOut    atomic.Uint64      // processes the platform listed but could not read, since start
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
	cfg.ScrapeTimeout = cmp.Or(max(0, cfg.ScrapeTimeout), 10*time.Second)
	cfg.ScrapeTimeoutOffset = max(0, cfg.ScrapeTimeoutOffset)
	cfg.N8nSampleInterval = cmp.Or(max(0, cfg.N8nSampleInterval), 5*time.Second)
	c := &Collector{cfg: cfg, probeNodes: probeNodes(cfg.Probes, cfg.Logger)}
	if cfg.ScrapeProbes {
		c.remote = &remoteProbes{client: &http.Client{Timeout: cfg.Timeout}, fresh: cfg.Window}
	}
	probes := len(cfg.Probes) > 0 || cfg.ScrapeProbes
	// With probes the runner's past saturation is unknown, so n8n's
	// all-time mean is not trusted; only deltas judged clean are.
	c.n8n = newN8nSampler(&http.Client{Timeout: cfg.Timeout}, probes, cfg.N8nMetricsURL, cfg.Window)
	if cfg.CPU != nil {
		c.count = &executionCounter{redis: cfg.CPU.Executions, c: c}
		c.cpu = newCPUSampler(*cfg.CPU, c.count)
	}
	c.shared = sharedGather{gather: c.Gather, limit: cfg.ScrapeTimeout, grace: cfg.ScrapeTimeoutOffset / 2}
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
		c.remote.report(r)
	}
	wg.Wait()
	if queueResult != nil {
		r.addSource(*queueResult)
		r.Queue = depth
	}
	c.observeLimits(r)
	c.readPools(ctx, r)
	c.measureJobTime(r)
	c.measureTaskTime(r)
	c.measureRunnerTime(r)
	c.evaluate(r)
	c.measureTaskWait(r)
	c.judgeRunners(r)
	c.bound(r)
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
		var partial PartialError
		if errors.As(err, &partial) {
			c.noteLeftOut(r, partial.LeftOut())
			return nil
		}
		return err
	}))
	r.LeftOutTotal = map[string]uint64{c.cfg.PlatformName: c.leftOut.Load()}
	r.PeersUnread = c.observePeers(r.Processes)
	r.Topology = c.pair(r.Processes)
}

// noteLeftOut counts and logs the processes a discovery left out.
func (c *Collector) noteLeftOut(r *Report, errs []error) {
	c.leftOut.Add(uint64(len(errs)))
	for _, err := range errs {
		r.LeftOut = append(r.LeftOut, err.Error())
		c.cfg.Logger.Warn("process left out of this scrape", "data_source", c.cfg.PlatformName, "err", err)
	}
}

func (c *Collector) logDown(r *Report) {
	for _, s := range r.Sources {
		if !s.Up {
			c.cfg.Logger.Warn("source down", "data_source", s.Name, "err", s.Err)
		}
	}
}
