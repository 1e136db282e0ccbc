package collector

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/ticker"
	"github.com/n8n-ceiling/n8n-ceiling/internal/window"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Bounds on reading a probe sidecar's /metrics: its answer is a few KiB,
// so anything past maxProbeBody is refused rather than parsed, and at most
// probeFetches are read at once.
const (
	maxProbeBody = 1 << 20
	probeFetches = 8
	// probeEvery spaces the background reads of the sidecars: the Redis
	// sampler's gate reads their figures as often.
	probeEvery = time.Second
)

// remoteProbes reads the probe sidecars the background discovery found,
// every probeEvery, into the same brokerprobe.Stats the in-process probes
// give. The task mean comes from the difference of the probe's duration
// histogram, over the windows of the in-process probe's recent mean. A
// scrape reads what it holds.
type remoteProbes struct {
	client *http.Client
	fresh  time.Duration // the task mean's window while tasks end; 0: brokerprobe.RecentFresh

	mu      sync.Mutex
	targets []probeTarget                         // from the last discovery
	source  *SourceResult                         // the last read's "probes" source; nil: no target
	current []routeStats                          // the last read's, for the sampler's gate and the runner state
	history map[string]*window.Window[taskSample] // by probe key
}

type taskSample struct {
	at    time.Time
	sum   float64
	count uint64
}

// fixedStats is one probe's figures as read at once.
type fixedStats brokerprobe.Stats

func (f fixedStats) Stats() brokerprobe.Stats { return brokerprobe.Stats(f) }

// probeTarget is a discovered probe and where its /metrics is served.
type probeTarget struct {
	process topology.Process
	url     string
}

// probeTargets are the discovered probes that some worker's runner
// reaches its broker through (a probe in a pod without a runner says
// nothing of capacity), with an address and a known metrics port. The
// exporter's own in-process probes are read directly, not here.
func probeTargets(t topology.Topology) []probeTarget {
	var out []probeTarget
	for _, p := range t.Probes {
		port := p.Settings.MetricsPort
		if strings.HasPrefix(p.ID, topology.InProcessPrefix) || !port.Known() || !fronts(t, p) {
			continue
		}
		host := p.Net.IP()
		if host == "" && p.Net.Host {
			host = "127.0.0.1"
		}
		if host == "" {
			continue
		}
		out = append(out, probeTarget{process: p, url: "http://" + net.JoinHostPort(host, strconv.Itoa(port.Value)) + "/metrics"})
	}
	return out
}

// fronts reports whether a worker's runner is attached through probe p,
// or a runner spread over workers is: the peers p reports dialling may
// pair that one.
func fronts(t topology.Topology, p topology.Process) bool {
	for _, w := range t.Workers {
		for _, a := range w.Runners {
			if a.Probe == p.Name {
				return true
			}
		}
	}
	return slices.ContainsFunc(t.Spread, func(s topology.Spread) bool { return s.Probe == p.Name })
}

// aim sets the probes to read from a discovery's topology.
func (rp *remoteProbes) aim(t topology.Topology) {
	targets := probeTargets(t)
	rp.mu.Lock()
	rp.targets = targets
	rp.mu.Unlock()
}

// run reads the probes every probeEvery until ctx ends.
func (rp *remoteProbes) run(ctx context.Context, timeout time.Duration) {
	ticker.Every(ctx, probeEvery, func(now time.Time) { rp.sample(ctx, timeout, now) })
}

// report adds the last read's "probes" source to r.
func (rp *remoteProbes) report(r *Report) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.source != nil {
		r.addSource(*rp.source)
	}
}

// sample reads every target once, stamped now: one "probes" source (down
// if any failed, naming one failure), and the figures for the gate.
func (rp *remoteProbes) sample(ctx context.Context, timeout time.Duration, now time.Time) {
	rp.mu.Lock()
	targets := rp.targets
	rp.mu.Unlock()
	if len(targets) == 0 {
		rp.set(nil, nil, nil)
		return
	}
	stats := make([][]brokerprobe.Reading, len(targets))
	errs := make([]error, len(targets))
	src := timed(ctx, "probes", timeout, func(ctx context.Context) error {
		var g errgroup.Group
		g.SetLimit(probeFetches)
		for i, tg := range targets {
			g.Go(func() error { stats[i], errs[i] = rp.read(ctx, tg); return nil })
		}
		_ = g.Wait() // each read's error is in errs
		var failed []error
		for _, err := range errs {
			if err != nil {
				failed = append(failed, err)
			}
		}
		return summarize(failed, len(targets))
	})
	var cur []routeStats
	keys := map[string]bool{}
	for i, readings := range stats {
		for _, rd := range readings {
			key := targets[i].process.ID + "|" + rd.Name
			keys[key], keys[key+"|handoff"] = true, true
			rd.RecentTaskMean, rd.RecentTaskCount = rp.recent(key, rd.TaskSum, rd.TaskCount, now)
			rd.RecentHandoffMean, rd.RecentHandoffCount = rp.recent(key+"|handoff", rd.HandoffSum, rd.HandoffCount, now)
			cur = append(cur, routeStats{id: targets[i].process.ID, probe: targets[i].process.Name, route: rd.Name,
				stats: fixedStats(rd.Stats), badUpstreams: rd.BadUpstreams})
		}
	}
	rp.set(cur, keys, &src)
}

// set keeps this read's figures and source, and forgets the task history
// of probes no longer seen (nil keys: all).
func (rp *remoteProbes) set(cur []routeStats, keys map[string]bool, src *SourceResult) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.current, rp.source = cur, src
	for k := range rp.history {
		if !keys[k] {
			delete(rp.history, k)
		}
	}
}

func (rp *remoteProbes) stats() []routeStats {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.current
}

// read fetches one probe sidecar's /metrics: one reading per probe label.
func (rp *remoteProbes) read(ctx context.Context, tg probeTarget) ([]brokerprobe.Reading, error) {
	fail := func(err error) ([]brokerprobe.Reading, error) {
		return nil, fmt.Errorf("probe %s: %w", tg.process.Name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tg.url, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := rp.client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("HTTP %d", resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	switch {
	case err != nil:
		return fail(err)
	case len(body) > maxProbeBody:
		return fail(fmt.Errorf("/metrics is over %d bytes; not read", maxProbeBody))
	}
	ss, err := parseProbeMetrics(body)
	if err != nil {
		return fail(err)
	}
	return ss, nil
}

// parseProbeMetrics reads a broker probe's metrics, one reading per value
// of the probe label.
func parseProbeMetrics(body []byte) ([]brokerprobe.Reading, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if fams[metricname.RunnerTasksRunning] == nil || fams[metricname.RunnerTaskDuration] == nil {
		return nil, errors.New("no " + metricname.RunnerTasksRunning + " or " + metricname.RunnerTaskDuration + " (is this a broker probe's /metrics?)")
	}
	return brokerprobe.Decode(fams), nil
}

// recent turns the histogram's running sum and count into the mean task
// time over the windows of brokerprobe's recent mean: the tasks since the
// oldest sample within fresh when any ended, else since the oldest within
// RecentAge. The first sight of a probe gives no mean; a count
// that fell means the probe restarted, and counts from zero.
func (rp *remoteProbes) recent(key string, sum float64, cnt uint64, now time.Time) (time.Duration, int) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.history == nil {
		rp.history = map[string]*window.Window[taskSample]{}
	}
	w := rp.history[key]
	if w == nil {
		w = window.New(brokerprobe.RecentAge, func(s taskSample) time.Time { return s.at },
			func(prev, next taskSample) bool { return next.count < prev.count })
		rp.history[key] = w
	}
	if rs := w.Readings(); len(rs) > 0 && cnt < rs[len(rs)-1].count {
		w.Add(taskSample{at: now}) // restarted: count from zero
	}
	w.Add(taskSample{at: now, sum: sum, count: cnt})
	rs := w.Readings()
	h := rs[:len(rs)-1] // the samples before this one
	fresh := cmp.Or(rp.fresh, brokerprobe.RecentFresh)
	from := slices.IndexFunc(h, func(s taskSample) bool { return now.Sub(s.at) <= fresh })
	if from < 0 || cnt <= h[from].count {
		from = 0
	}
	if len(h) == 0 || cnt <= h[from].count {
		return 0, 0
	}
	n := cnt - h[from].count
	mean := (sum - h[from].sum) / float64(n)
	if mean < 0 {
		return 0, 0
	}
	return time.Duration(mean * float64(time.Second)), int(min(n, math.MaxInt32))
}
