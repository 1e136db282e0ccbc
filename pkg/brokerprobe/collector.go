package brokerprobe

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// descs are the live gauges' descriptors, read from the connections at
// scrape time. The probe name is a constant label, so several probes can
// be registered on one registry. The counters and the task-time histogram
// are client_golang metrics held by the tally.
type descs struct {
	running, offers, limit, conns, unresponsive, upstreams *prometheus.Desc
}

func newDescs(name string) descs {
	l := prometheus.Labels{"probe": name}
	d := func(metric, help string, vars ...string) *prometheus.Desc {
		return prometheus.NewDesc(metric, help, vars, l)
	}
	return descs{
		running:      d(metricname.RunnerTasksRunning, "Tasks the runners behind this probe are running: accepted minus done, error, cancelled and lost."),
		offers:       d(metricname.RunnerOffersOpen, "Unexpired task offers the runners have open with the broker."),
		limit:        d(metricname.RunnerInferredMaxConcurrency, "Runner concurrency limit inferred from the wire: peak of open offers plus running, or the first offer burst; summed over connected runners."),
		conns:        d(metricname.RunnerConnections, "Open websocket connections through the probe, by kind (runner or launcher).", "kind"),
		unresponsive: d(metricname.RunnerUnresponsiveConnections, "Runner connections that hold work (tasks running, or accepted by the broker and unanswered) and have sent no message for longer than their offer validity plus the recent mean task time: a frozen, paused or blocked runner."),
		upstreams:    d(metricname.RunnerUpstreamConnections, "Live websocket connections the probe opened to its broker, by the IP and port they end at (peer).", "peer"),
	}
}

// Describe implements prometheus.Collector.
func (p *Probe) Describe(ch chan<- *prometheus.Desc) {
	d := p.descs
	for _, desc := range []*prometheus.Desc{d.running, d.offers, d.limit, d.conns, d.unresponsive, d.upstreams} {
		ch <- desc
	}
	p.tally.describe(ch)
}

// Collect implements prometheus.Collector: the gauges are read from the
// live connections, the counters and histogram are the tally's own.
func (p *Probe) Collect(ch chan<- prometheus.Metric) {
	now := p.now()
	mean, _ := p.tally.recentMean(now)
	g := p.gauges(now, mean)
	d := p.descs
	gauge := func(desc *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(v), labels...)
	}
	gauge(d.running, g.running)
	gauge(d.offers, g.offers)
	gauge(d.limit, g.limit)
	gauge(d.conns, g.runnerConns, "runner")
	gauge(d.conns, g.launcherConns, "launcher")
	gauge(d.unresponsive, g.unresponsive)
	for _, u := range p.upstreamPeers() {
		gauge(d.upstreams, u.Connections, u.Peer.String())
	}
	p.tally.collect(ch)
}

// gaugeValues sums the live connections. Launcher connections are kept
// apart: their one offer and deferred task are not runner capacity.
type gaugeValues struct {
	running, offers, limit, runnerConns, launcherConns, unresponsive int
}

// gauges sums the connections at now; taskTime is the recent mean task
// time, which a runner holding work may stay silent for.
func (p *Probe) gauges(now time.Time, taskTime time.Duration) gaugeValues {
	var g gaugeValues
	for _, c := range p.connInfos(now) {
		if c.Launcher {
			g.launcherConns++
			continue
		}
		g.runnerConns++
		g.running += c.Running
		g.offers += c.OffersOpen
		g.limit += c.InferredLimit
		if c.Unresponsive(taskTime) {
			g.unresponsive++
		}
	}
	return g
}

// Stats is a snapshot for the exporter's capacity model.
type Stats struct {
	Name                                   string
	Running, OffersOpen, InferredLimit     int
	RunnerConnections, LauncherConnections int
	Unresponsive                           int // runner connections silent while holding work (ConnInfo.Unresponsive)
	TasksDone                              uint64
	TasksFailed                            uint64        // runner:taskerror plus tasks lost with their connection
	RecentTaskMean                         time.Duration // mean accept→done/error of the tasks that ended within Config.TaskWindow (default 30 s), else in the last 5 min (at most the last 1000); 0 if none
	RecentTaskCount                        int
	// RecentHandoffMean is the mean hand-off (runner:taskdone to the next
	// runner:taskaccepted of the slot, see handoffs) over the same window.
	RecentHandoffMean  time.Duration
	RecentHandoffCount int
	// The broker's interventions since the probe started: tasks it
	// cancelled because the runner missed N8N_RUNNERS_TASK_ACCEPT_TIMEOUT,
	// connections it closed with 1002 (a runner it reports unresponsive),
	// and connections it told to drain (n8n shutting down).
	AcceptTimeouts, UnresponsiveCloses, Drains uint64
	// Upstreams are the broker addresses the live connections to the
	// broker end at, with their counts, sorted by address: which broker a
	// name that reaches several (Docker DNS over replicas) dialled.
	Upstreams []UpstreamPeer
}

// Stats returns the probe's current figures.
func (p *Probe) Stats() Stats {
	now := p.now()
	mean, count := p.tally.recentMean(now)
	handoff, handoffs := p.tally.recentHandoff(now)
	g := p.gauges(now, mean)
	return Stats{
		Name:                p.cfg.Name,
		Running:             g.running,
		OffersOpen:          g.offers,
		InferredLimit:       g.limit,
		RunnerConnections:   g.runnerConns,
		LauncherConnections: g.launcherConns,
		Unresponsive:        g.unresponsive,
		TasksDone:           p.tally.count(outcomeDone),
		TasksFailed:         p.tally.count(outcomeError) + p.tally.count(outcomeLost),
		RecentTaskMean:      mean,
		RecentTaskCount:     count,
		RecentHandoffMean:   handoff,
		RecentHandoffCount:  handoffs,
		AcceptTimeouts:      p.tally.count(outcomeAcceptTimeout),
		UnresponsiveCloses:  p.tally.closed(),
		Drains:              counterValue(p.tally.drains),
		Upstreams:           p.upstreamPeers(),
	}
}
