package brokerprobe

import (
	"math"

	dto "github.com/prometheus/client_model/go"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Reading is one probe's figures as its /metrics shows them: the Stats
// its Collect publishes, less the recent task mean (a window of the
// tasks' own times, which the text does not carry), and the task
// histogram's running sum and count, from whose differences a reader
// takes the mean over a window of its own. The Has fields say which
// families held a series of this probe.
type Reading struct {
	Stats
	TaskSum   float64 // seconds
	TaskCount uint64
	// HandoffSum and HandoffCount are the hand-off histogram's (n8n_runner_task_handoff_seconds).
	HandoffSum   float64
	HandoffCount uint64

	HasRunning, HasLimit, HasConnections, HasDuration bool
	// BadUpstreams counts the upstream series left out of Upstreams: a
	// peer label that is not an IP and port, or past maxUpstreams
	// distinct peers.
	BadUpstreams int
}

// Decode reads the probes' series from a parsed /metrics (a probe
// sidecar's, or an exporter's that carries its in-process probes): one
// Reading per value of the probe label, in order of first appearance.
// Several series of one probe add up. A negative, NaN or absurd value (a
// broken or hostile answer) reads as 0 or is capped, never a panic.
func Decode(fams map[string]*dto.MetricFamily) []Reading {
	var out []Reading
	index := map[string]int{}
	each := func(family string, add func(r *Reading, m *dto.Metric)) {
		for _, m := range fams[family].GetMetric() {
			name := labelValue(m, "probe")
			i, ok := index[name]
			if !ok {
				i, index[name] = len(out), len(out)
				out = append(out, Reading{Stats: Stats{Name: name}})
			}
			add(&out[i], m)
		}
	}
	each(metricname.RunnerTasksRunning, func(r *Reading, m *dto.Metric) {
		r.Running, r.HasRunning = gaugeCount(r.Running, m), true
	})
	each(metricname.RunnerOffersOpen, func(r *Reading, m *dto.Metric) { r.OffersOpen = gaugeCount(r.OffersOpen, m) })
	each(metricname.RunnerInferredMaxConcurrency, func(r *Reading, m *dto.Metric) {
		r.InferredLimit, r.HasLimit = gaugeCount(r.InferredLimit, m), true
	})
	each(metricname.RunnerConnections, func(r *Reading, m *dto.Metric) {
		r.HasConnections = true
		switch labelValue(m, "kind") {
		case "runner":
			r.RunnerConnections = gaugeCount(r.RunnerConnections, m)
		case "launcher":
			r.LauncherConnections = gaugeCount(r.LauncherConnections, m)
		}
	})
	each(metricname.RunnerUnresponsiveConnections, func(r *Reading, m *dto.Metric) {
		r.Unresponsive = gaugeCount(r.Unresponsive, m)
	})
	each(metricname.RunnerTasks, func(r *Reading, m *dto.Metric) {
		v := counterCount(m.GetCounter().GetValue())
		switch labelValue(m, "outcome") {
		case "done":
			r.TasksDone = capCount(r.TasksDone + v)
		case "error", "lost":
			r.TasksFailed = capCount(r.TasksFailed + v)
		case "accept_timeout":
			r.AcceptTimeouts = capCount(r.AcceptTimeouts + v)
		}
	})
	each(metricname.RunnerUnresponsiveCloses, func(r *Reading, m *dto.Metric) {
		r.UnresponsiveCloses = capCount(r.UnresponsiveCloses + counterCount(m.GetCounter().GetValue()))
	})
	each(metricname.RunnerDrains, func(r *Reading, m *dto.Metric) {
		r.Drains = capCount(r.Drains + counterCount(m.GetCounter().GetValue()))
	})
	each(metricname.RunnerTaskDuration, func(r *Reading, m *dto.Metric) {
		r.HasDuration = addHistogram(&r.TaskSum, &r.TaskCount, m) || r.HasDuration
	})
	each(metricname.RunnerTaskHandoff, func(r *Reading, m *dto.Metric) {
		addHistogram(&r.HandoffSum, &r.HandoffCount, m)
	})
	each(metricname.RunnerUpstreamConnections, addUpstreamSeries)
	for i := range out {
		out[i].Upstreams = sortUpstreams(out[i].Upstreams)
	}
	return out
}

// addUpstreamSeries adds one upstream series: a peer that is not an IP
// and port is counted bad, a gauge under 1 (none live, NaN) is left out.
func addUpstreamSeries(r *Reading, m *dto.Metric) {
	ep, ok := parsePeer(labelValue(m, "peer"))
	if !ok {
		r.BadUpstreams++
		return
	}
	n := gaugeCount(0, m)
	if n < 1 {
		return
	}
	var kept bool
	if r.Upstreams, kept = addUpstream(r.Upstreams, ep, n); !kept {
		r.BadUpstreams++
	}
}

// addHistogram adds a histogram's sum and count to the running ones and
// says whether it could: a NaN, infinite or negative sum is left out.
func addHistogram(sum *float64, count *uint64, m *dto.Metric) bool {
	h := m.GetHistogram()
	s := h.GetSampleSum()
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return false
	}
	*sum += s
	*count = capCount(*count + min(h.GetSampleCount(), maxCount))
	return true
}

// maxGauge caps a gauge read as a count; maxCount caps a counter at the
// largest integer a float64 holds exactly.
const (
	maxGauge = 1e6
	maxCount = 1 << 53
)

// gaugeCount adds a gauge's value, read as a count, to a running total.
func gaugeCount(total int, m *dto.Metric) int {
	v := m.GetGauge().GetValue()
	if math.IsNaN(v) || v < 0 {
		return total
	}
	return int(min(float64(total)+v, maxGauge))
}

// counterCount reads a counter's value as a count.
func counterCount(v float64) uint64 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	return uint64(min(v, maxCount))
}

func capCount(v uint64) uint64 { return min(v, maxCount) }

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
