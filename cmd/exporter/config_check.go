package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/common/promslog"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
)

// badFunc records a setting's error, naming its variable and flag.
type badFunc func(name, format string, a ...any)

// collect returns a badFunc that appends to errs.
func collect(errs *[]error) badFunc {
	return func(name, format string, a ...any) {
		*errs = append(*errs, fmt.Errorf("%s (-%s): %s", name, flagName(name), fmt.Sprintf(format, a...)))
	}
}

// derive fills the fields built from the settings: the probes with their
// heartbeat and task window (the demand window), and the logger's level
// and format.
func (c *Config) derive() error {
	var errs []error
	bad := collect(&errs)
	probes, err := brokerprobe.ParseConfigs(c.ProbeListen, c.ProbeUpstream, c.ProbeName)
	if err != nil {
		errs = append(errs, err)
	}
	heartbeat, err := brokerprobe.ParseHeartbeat(c.ProbeHeartbeat)
	if err != nil {
		errs = append(errs, err)
	}
	for i := range probes {
		probes[i].HeartbeatInterval = heartbeat
		probes[i].TaskWindow = c.SampleWindow
	}
	c.probes = probes
	c.logLevel, c.logFormat = promslog.NewLevel(), promslog.NewFormat()
	if c.logLevel.Set(c.LogLevel) != nil {
		bad("EXPORTER_LOG_LEVEL", "want debug, info, warn or error")
	}
	if c.logFormat.Set(c.LogFormat) != nil {
		bad("EXPORTER_LOG_FORMAT", "want json or logfmt")
	}
	return errors.Join(errs...)
}

// validate checks the settings; it changes nothing.
func (c Config) validate() error {
	var errs []error
	bad := collect(&errs)
	c.validateAddresses(bad)
	c.validatePlatform(bad)
	c.validateCounts(bad)
	c.validateDurations(bad)
	if !c.Discovery && strings.TrimSpace(c.ProbeListen) == "" {
		bad("EXPORTER_DISCOVERY", "false leaves nothing to serve without PROBE_LISTEN")
	}
	return errors.Join(errs...)
}

// setting is one variable's name and parsed value.
type setting[T any] struct {
	name  string
	value T
}

func (c Config) validateAddresses(bad badFunc) {
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("EXPORTER_LISTEN", "want host:port, e.g. :9810")
	}
	if c.ContainerLabel != "" {
		if err := dockerstats.ValidLabelFilter(c.ContainerLabel); err != nil {
			bad("EXPORTER_CONTAINER_LABEL", "%v", err)
		}
	}
	if c.N8nMetricsURL != "" {
		if u, err := url.Parse(c.N8nMetricsURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("N8N_METRICS_URL", "want an http(s) URL, e.g. http://127.0.0.1:5678/metrics")
		}
	}
}

func (c Config) validateCounts(bad badFunc) {
	if c.RedisPort < 1 || c.RedisPort > 65535 {
		bad("QUEUE_BULL_REDIS_PORT", "want 1-65535, got %d", c.RedisPort)
	}
	for _, s := range []setting[int]{{"EXPORTER_STATS_CONCURRENCY", c.StatsConcurrency},
		{"EXPORTER_MAX_REQUESTS", c.MaxRequests}, {"EXPORTER_DEMAND_MIN_EXECUTIONS", c.DemandMin}} {
		if s.value < 1 {
			bad(s.name, "want at least 1, got %d", s.value)
		}
	}
	if c.ProcessCPU != processCPUWhole && c.ProcessCPU != processCPUThread {
		bad("EXPORTER_PROCESS_CPU", "want process or thread")
	}
	if !(c.ProcessCores > 0 && c.ProcessCores <= 64) {
		bad("EXPORTER_PROCESS_CORES", "want a number of cores above 0 and at most 64, e.g. 0.94; got %v", c.ProcessCores)
	}
}

func (c Config) validateDurations(bad badFunc) {
	for _, s := range []setting[time.Duration]{{"EXPORTER_SOURCE_TIMEOUT", c.SourceTimeout},
		{"EXPORTER_SAMPLE_INTERVAL", c.SampleInterval}, {"EXPORTER_SCRAPE_TIMEOUT", c.ScrapeTimeout},
		{"EXPORTER_N8N_SAMPLE_INTERVAL", c.N8nInterval}} {
		if s.value <= 0 {
			bad(s.name, "want a positive duration")
		}
	}
	if c.SampleWindow < 5*c.SampleInterval {
		bad("EXPORTER_SAMPLE_WINDOW", "want at least 5 sample intervals")
	} else if c.N8nInterval > 0 && c.SampleWindow < 2*c.N8nInterval {
		bad("EXPORTER_SAMPLE_WINDOW", "want at least two of n8n's histogram reads (2 × EXPORTER_N8N_SAMPLE_INTERVAL, %s): regular mode's runner time is taken over it", 2*c.N8nInterval)
	}
	if c.DemandWindow < 5*c.SampleInterval {
		bad("EXPORTER_DEMAND_WINDOW", "want at least 5 sample intervals")
	}
	if c.DemandMaxWindow < c.DemandWindow {
		bad("EXPORTER_DEMAND_MAX_WINDOW", "want at least EXPORTER_DEMAND_WINDOW (%s)", c.DemandWindow)
	}
	if c.ScrapeOffset < 0 || c.ScrapeOffset >= c.ScrapeTimeout {
		bad("EXPORTER_SCRAPE_TIMEOUT_OFFSET", "want a duration from 0 to below EXPORTER_SCRAPE_TIMEOUT")
	}
	if c.ServiceTime < 0 {
		bad("EXPORTER_SERVICE_TIME", "want a positive duration, e.g. 3s")
	}
}

// EXPORTER_PROCESS_CPU's values.
const (
	processCPUWhole  = "process"
	processCPUThread = "thread"
)
