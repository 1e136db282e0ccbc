package brokerprobe

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// descs are the probe's metric descriptors. The probe name is a constant
// label, so several probes can be registered on one registry.
type descs struct {
	running, offers, limit, conns, tasks, rejections, duration, frames, parseErrors *prometheus.Desc
}

func newDescs(name string) descs {
	l := prometheus.Labels{"probe": name}
	d := func(metric, help string, vars ...string) *prometheus.Desc {
		return prometheus.NewDesc(metric, help, vars, l)
	}
	return descs{
		running:     d("n8n_runner_tasks_running", "Tasks the runners behind this probe are running: accepted minus done, error, cancelled and lost."),
		offers:      d("n8n_runner_offers_open", "Unexpired task offers the runners have open with the broker."),
		limit:       d("n8n_runner_inferred_max_concurrency", "Runner concurrency limit inferred from the wire: peak of open offers plus running, or the first offer burst; summed over connected runners."),
		conns:       d("n8n_runner_connections", "Open websocket connections through the probe, by kind (runner or launcher).", "kind"),
		tasks:       d("n8n_runner_tasks_total", "Tasks that reached an outcome on the runner's websocket.", "outcome"),
		rejections:  d("n8n_runner_task_rejections_total", "Task offers accepted by the broker but rejected by the runner, by reason class.", "reason"),
		duration:    d("n8n_runner_task_duration_seconds", "Runner task time from runner:taskaccepted to runner:taskdone or runner:taskerror."),
		frames:      d("n8n_runner_frames_total", "Websocket data messages relayed, by direction.", "direction"),
		parseErrors: d("n8n_runner_frame_parse_errors_total", "Relayed messages whose first 4 KiB did not parse as a task-runner message; they were forwarded unchanged."),
	}
}

// Describe implements prometheus.Collector.
func (p *Probe) Describe(ch chan<- *prometheus.Desc) {
	d := p.descs
	for _, desc := range []*prometheus.Desc{d.running, d.offers, d.limit, d.conns, d.tasks, d.rejections, d.duration, d.frames, d.parseErrors} {
		ch <- desc
	}
}

// Collect implements prometheus.Collector, reading the live state and
// counters at scrape time.
func (p *Probe) Collect(ch chan<- prometheus.Metric) {
	now := p.now()
	g := p.gauges(now)
	t := p.tally.snapshot(now)
	d := p.descs
	gauge := func(desc *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(v), labels...)
	}
	counter := func(desc *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(d.running, g.running)
	gauge(d.offers, g.offers)
	gauge(d.limit, g.limit)
	gauge(d.conns, g.runnerConns, "runner")
	gauge(d.conns, g.launcherConns, "launcher")
	for i, v := range t.outcomes {
		counter(d.tasks, v, outcomeLabels[i])
	}
	for i, v := range t.rejections {
		counter(d.rejections, v, rejectionLabels[i])
	}
	for i, v := range t.frames {
		counter(d.frames, v, directionLabels[i])
	}
	counter(d.parseErrors, t.parseErrors)
	ch <- prometheus.MustNewConstHistogram(d.duration, t.durCount, t.durSum, t.cumulative)
}

// gaugeValues sums the live connections. Launcher connections are kept
// apart: their one offer and deferred task are not runner capacity.
type gaugeValues struct {
	running, offers, limit, runnerConns, launcherConns int
}

func (p *Probe) gauges(now time.Time) gaugeValues {
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
	}
	return g
}

// Stats is a snapshot for the exporter's capacity model.
type Stats struct {
	Name                                   string
	Running, OffersOpen, InferredLimit     int
	RunnerConnections, LauncherConnections int
	TasksDone                              uint64
	TasksFailed                            uint64        // runner:taskerror plus tasks lost with their connection
	RecentTaskMean                         time.Duration // mean accept→done/error of the last 1000 tasks within 5 min; 0 if none
	RecentTaskCount                        int
}

// Stats returns the probe's current figures.
func (p *Probe) Stats() Stats {
	now := p.now()
	g := p.gauges(now)
	t := p.tally.snapshot(now)
	return Stats{
		Name:                p.cfg.Name,
		Running:             g.running,
		OffersOpen:          g.offers,
		InferredLimit:       g.limit,
		RunnerConnections:   g.runnerConns,
		LauncherConnections: g.launcherConns,
		TasksDone:           t.outcomes[outcomeDone],
		TasksFailed:         t.outcomes[outcomeError] + t.outcomes[outcomeLost],
		RecentTaskMean:      t.recentMean,
		RecentTaskCount:     t.recentCount,
	}
}
