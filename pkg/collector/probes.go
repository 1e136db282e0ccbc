package collector

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// ProbeStats is a probe's current figures (brokerprobe.Probe); tests inject
// exact figures (a saturated runner) through it.
type ProbeStats interface {
	Stats() brokerprobe.Stats
}

// Probe is a broker probe running in this process: its route, for
// pairing, and its figures.
type Probe struct {
	Config brokerprobe.Config
	Stats  ProbeStats
}

// probeNodes turns the in-process probes into host-network probe nodes.
// Their configs were validated at start; one that still fails is logged
// and left out of pairing.
func probeNodes(ps []Probe, log *slog.Logger) []topology.Process {
	var nodes []topology.Process
	for _, p := range ps {
		n, err := topology.InProcessProbe(p.Config.Name, p.Config.Listen, p.Config.Upstream)
		if err != nil {
			log.Warn("in-process probe left out of pairing", "err", err)
			continue
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// pair groups the discovered processes with the in-process probes as
// probe nodes, so a runner dialling one counts for the worker behind it;
// a discovered probe on the same listener (the exporter itself, run as a
// container) is that probe already.
func (c *Collector) pair(ps []topology.Process) topology.Topology {
	all := ps[:len(ps):len(ps)]
	for _, n := range c.probeNodes {
		if !topology.ListensOn(ps, n.Settings.Routes.Value[0].Listen) {
			all = append(all, n)
		}
	}
	fillUpstreams(all, c.routes())
	return topology.Pair(all)
}

// routeStats is one probe route's figures: the probe process that serves
// it (its topology ID and name) and the route's label (its probe label).
// badUpstreams counts the upstream series its /metrics held that were
// left out (brokerprobe.Reading.BadUpstreams).
type routeStats struct {
	id, probe, route string
	stats            ProbeStats
	badUpstreams     int
}

// routes are the figures of the in-process probes and of the probe
// sidecars read last, by route.
func (c *Collector) routes() []routeStats {
	var out []routeStats
	for _, p := range c.cfg.Probes {
		out = append(out, routeStats{id: topology.InProcessPrefix + p.Config.Name, probe: p.Config.Name, route: p.Config.Name, stats: p.Stats})
	}
	if c.remote != nil {
		out = append(out, c.remote.stats()...)
	}
	return out
}

// probeStats are the figures of every probe route.
func (c *Collector) probeStats() []ProbeStats {
	var out []ProbeStats
	for _, r := range c.routes() {
		out = append(out, r.stats)
	}
	return out
}

// runnerSaturated reports whether any in-process probe's runners have all
// their slots busy now, or no runner is connected to it at all (a runner
// restarting with its worker), and remembers when. Jobs then hold worker
// slots while they wait for a runner, so job durations measure the wait.
// The Redis sampler asks every second, so the memory has that resolution.
func (c *Collector) runnerSaturated() bool { return c.saturatedAt(time.Now()) }

func (c *Collector) saturatedAt(now time.Time) bool {
	for _, p := range c.probeStats() {
		if s := p.Stats(); s.InferredLimit == 0 || s.Running >= s.InferredLimit {
			c.lastSat.Store(now.UnixNano())
			return true
		}
	}
	return false
}

// lastSaturated checks the probes at now, then says when a runner was last
// seen saturated (zero: never).
func (c *Collector) lastSaturated(now time.Time) time.Time {
	c.saturatedAt(now)
	if n := c.lastSat.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// measureTaskTime takes the runner-stage time from the probes: the mean of
// their recent task means, weighted by task count. While Code tasks waited
// for a runner slot through the whole window (Redis's held jobs), each
// freed slot went straight to the next task, so the probes' mean hand-off
// between tasks (timed only for slots a full runner freed) holds the slot
// too and is added: a runner of limit 2 at 20 VUs ran 1.049 s tasks
// 1.106 s apart on a slow host. Below saturation a hand-off also holds the
// wait for a request, so it is left out. Each probe is read once, so the
// tasks and hand-offs come from the same moment.
func (c *Collector) measureTaskTime(r *Report) {
	var stats []brokerprobe.Stats
	for _, p := range c.probeStats() {
		stats = append(stats, p.Stats())
	}
	task, tasks := probeMean(stats, func(s brokerprobe.Stats) (time.Duration, int) {
		return s.RecentTaskMean, s.RecentTaskCount
	})
	if tasks == 0 {
		return
	}
	m := ServiceTime{Stage: StageTask, Source: SourceProbe, Time: task,
		Note: fmt.Sprintf("mean of the last %d tasks seen by the broker probe", tasks)}
	if c.tasksWaited(r) {
		handoff, n := probeMean(stats, func(s brokerprobe.Stats) (time.Duration, int) {
			return s.RecentHandoffMean, s.RecentHandoffCount
		})
		if n > 0 {
			m.Time += handoff
			m.Note += fmt.Sprintf(", plus the mean hand-off between tasks, %s over %d (tasks waited for the runner throughout the window)",
				handoff.Round(time.Millisecond), n)
		}
	}
	r.Measured = append(r.Measured, m)
}

// tasksWaited says whether Redis showed Code tasks waiting for a runner
// slot through the whole window: queue mode, the runner capacity known.
func (c *Collector) tasksWaited(r *Report) bool {
	return c.cfg.Sampler != nil && len(r.Topology.Workers) > 0 && !regularOnly(r.Topology) && c.cfg.Sampler.WaitedThroughout()
}

// probeMean is the count-weighted mean of one recent mean of each probe.
func probeMean(stats []brokerprobe.Stats, of func(brokerprobe.Stats) (time.Duration, int)) (time.Duration, int) {
	var weighted time.Duration
	var total int
	for _, s := range stats {
		mean, n := of(s)
		weighted += mean * time.Duration(n)
		total += n
	}
	if total == 0 {
		return 0, 0
	}
	return weighted / time.Duration(total), total
}
