package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/collector"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/hostcpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
)

// run serves until ctx ends. ready, if set, receives the bound exporter
// address once listening (tests use port 0).
func run(ctx context.Context, cfg Config, logger *slog.Logger, ready chan<- string) error {
	if err := checkWebConfig(cfg); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// The goroutines end once ctx does: cancel before waiting for them, on
	// every return (a failed listen included).
	defer func() { cancel(); wg.Wait() }()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), buildInfoCollector())
	probes, err := startProbes(ctx, cfg, logger, reg, &wg)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	opts := promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, ErrorLog: slogPrinter{logger}}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	if cfg.Discovery {
		col, closeSources, err := buildCollector(ctx, cfg, logger, probes, &wg)
		if err != nil {
			return err
		}
		defer closeSources()
		mux.Handle("/metrics", limitInFlight(col.MetricsHandler(reg, opts), cfg.MaxRequests))
		mux.Handle("/", col.LandingHandler())
		mux.Handle("/verdict", col.VerdictHandler())
	} else {
		mux.Handle("/metrics", limitInFlight(promhttp.HandlerFor(reg, opts), cfg.MaxRequests))
		mux.Handle("/", probeLanding(probes))
	}
	return serve(ctx, cfg.Listen, mux, logger, ready, cfg)
}

// buildCollector wires the platform (platform.go), Redis and the probes into one
// collector, and starts the Redis sampler.
func buildCollector(ctx context.Context, cfg Config, logger *slog.Logger, probes []*brokerprobe.Probe, wg *sync.WaitGroup) (*collector.Collector, func(), error) {
	pl, err := buildPlatform(ctx, cfg, logger, wg)
	if err != nil {
		return nil, nil, err
	}
	cc := collector.Config{Platform: pl.discoverer, PlatformName: pl.name, Memory: pl.memory, ScrapeProbes: pl.scrapeProbes,
		N8nMetricsURL: cfg.N8nMetricsURL, ServiceTime: cfg.ServiceTime, Timeout: cfg.SourceTimeout, Logger: logger, Peers: pl.peers}
	cc.ScrapeTimeout, cc.ScrapeTimeoutOffset, cc.N8nSampleInterval = cfg.ScrapeTimeout, cfg.ScrapeOffset, cfg.N8nInterval
	cc.Window = cfg.SampleWindow
	for i, p := range probes {
		cc.Probes = append(cc.Probes, collector.Probe{Config: cfg.probes[i], Stats: p})
	}
	closers := []func() error{pl.close}
	redis.SetLogger(redisLogger{logger})
	var bull collector.ExecutionCounter // nil without Redis
	if cfg.RedisHost != "" {
		rdb := redis.NewClient(&redis.Options{Addr: net.JoinHostPort(cfg.RedisHost, strconv.Itoa(cfg.RedisPort)),
			Password: cfg.RedisPassword, DB: cfg.RedisDB, DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1,
			DialerRetries: 1, DialerRetryTimeout: 50 * time.Millisecond})
		closers = append(closers, rdb.Close)
		cc.Queue = queue.NewReader(rdb, cfg.QueuePrefix)
		cc.Sampler = queue.NewSampler(cc.Queue, cfg.SampleInterval, cfg.SampleWindow)
		bull = cc.Sampler
	}
	cc.CPU = cpuConfig(cfg, bull, pl.cpu)
	cc.CPU.Procs = pl.procs
	closeAll := func() {
		for _, c := range closers {
			_ = c()
		}
	}
	col := collector.New(cc)
	wg.Add(1)
	go func() { defer wg.Done(); col.Run(ctx) }()
	return col, closeAll, nil
}

// cpuConfig wires the CPU demands: executions from Bull (nil: no Redis;
// regular mode counts them from n8n's histogram or the probes), container
// CPU from the cgroup files (nil: none), the host's from /proc/stat and
// PostgreSQL's and Redis's from their processes' stat files.
func cpuConfig(cfg Config, q collector.ExecutionCounter, cpu collector.CPUReader) *collector.CPUConfig {
	c := &collector.CPUConfig{Executions: q, CPU: cpu, Interval: cfg.SampleInterval, Window: cfg.DemandWindow,
		MaxWindow: cfg.DemandMaxWindow, MinExecutions: float64(cfg.DemandMin), ProcessCores: cfg.ProcessCores,
		Threads: cfg.ProcessCPU == processCPUThread}
	if cfg.ProcRoot != "" {
		c.Host = func() (hostcpu.Times, error) { return hostcpu.Read(cfg.ProcRoot) }
		backing := &proccpu.BackingReader{Root: cfg.ProcRoot}
		c.Backing = func() (map[string]float64, error) { return backing.Read(time.Now()) }
	}
	return c
}

// probeGrace is how long the relays get to end on shutdown, as long as
// the exporter's own server gets.
const probeGrace = 5 * time.Second

// startProbes listens on every PROBE_LISTEN address and registers each
// probe's metrics on reg.
func startProbes(ctx context.Context, cfg Config, logger *slog.Logger, reg *prometheus.Registry, wg *sync.WaitGroup) ([]*brokerprobe.Probe, error) {
	var probes []*brokerprobe.Probe
	for _, pc := range cfg.probes {
		p, err := brokerprobe.New(pc, logger)
		if err != nil {
			return nil, fmt.Errorf("PROBE_LISTEN %s: %w", pc.Listen, err)
		}
		l, err := net.Listen("tcp", pc.Listen)
		if err != nil {
			return nil, fmt.Errorf("PROBE_LISTEN %s: %w", pc.Listen, err)
		}
		reg.MustRegister(p)
		probes = append(probes, p)
		srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second}
		wg.Add(2)
		go func() { defer wg.Done(); _ = srv.Serve(l) }()
		go func() { defer wg.Done(); <-ctx.Done(); _ = srv.Close(); stopProbe(p) }()
		logger.Info("broker probe listening", "probe", pc.Name, "listen", l.Addr().String())
	}
	return probes, nil
}

// stopProbe sends 1001 Going Away to both sides of the probe's relays and
// gives them probeGrace to end.
func stopProbe(p *brokerprobe.Probe) {
	ctx, cancel := context.WithTimeout(context.Background(), probeGrace)
	defer cancel()
	_ = p.Shutdown(ctx)
}

func serve(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, ready chan<- string, cfg Config) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("EXPORTER_LISTEN %s: %w", addr, err)
	}
	srv := newServer(h, cfg)
	logger.Info("exporter listening", "listen", l.Addr().String(), "discovery", cfg.Discovery,
		"redis", cfg.RedisHost != "" && cfg.Discovery, "probes", len(cfg.probes), "label_filter", cfg.ContainerLabel)
	if ready != nil {
		ready <- l.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- serveWeb(l, srv, cfg, logger) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shut)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// slogPrinter adapts promhttp's error log to slog.
type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.l.Warn("metrics", "err", fmt.Sprint(v...)) }

// redisLogger sends go-redis's own chatter (dial failures, repeated every
// attempt) to debug: the redis source's up metric already says it.
type redisLogger struct{ l *slog.Logger }

func (r redisLogger) Printf(_ context.Context, format string, v ...any) {
	r.l.Debug("redis client", "detail", fmt.Sprintf(format, v...))
}
