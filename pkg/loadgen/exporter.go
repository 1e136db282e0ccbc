package loadgen

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

// Exporter metric names this reader understands (published by
// n8n-ceiling's exporter).
const (
	metricWorkerConcurrency = "n8n_worker_concurrency"
	metricRunnerMax         = "n8n_runner_max_concurrency"
	metricBottleneck        = "n8n_worker_bottleneck"
	metricClusterEffective  = "n8n_cluster_effective_concurrency"
	metricClusterCeiling    = "n8n_cluster_ceiling_executions_per_second"
	metricServiceTime       = "n8n_service_time_seconds"
	metricServiceTimeUsed   = "n8n_exporter_service_time_used"
	maxExporterBody         = 8 << 20
)

// ExporterSnapshot is the model's view at one moment.
type ExporterSnapshot struct {
	Cluster          capacity.Cluster
	Verdict          capacity.Verdict
	Ceiling          float64 // executions per second; the exporter's own figure when published
	CeilingPublished bool    // the exporter published its ceiling (else Ceiling is the model's)
	Effective        int
	Bottleneck       string        // "runner", "worker", "none", or per worker when they differ
	Job, Task        ServiceFigure // the per-stage figures Cluster.Service is built from
}

// ServiceFigure is one stage's service time as read, with its source.
type ServiceFigure struct {
	Seconds float64
	Source  string
}

// ExporterReader scrapes the exporter's /metrics.
type ExporterReader struct {
	URL    string
	Client *http.Client
}

// Read fetches and parses one scrape.
func (r *ExporterReader) Read(ctx context.Context) (ExporterSnapshot, error) {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return ExporterSnapshot{}, fmt.Errorf("exporter %s: %w", r.URL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return ExporterSnapshot{}, fmt.Errorf("exporter %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ExporterSnapshot{}, fmt.Errorf("exporter %s: HTTP %d", r.URL, resp.StatusCode)
	}
	return ParseExporter(io.LimitReader(resp.Body, maxExporterBody))
}

// ParseExporter builds a snapshot from the exporter's text exposition.
func ParseExporter(in io.Reader) (ExporterSnapshot, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(in)
	if err != nil {
		return ExporterSnapshot{}, fmt.Errorf("exporter metrics: %w", err)
	}
	return ExporterFromFamilies(fams)
}

// ExporterFromFamilies builds a snapshot from an already parsed scrape.
func ExporterFromFamilies(fams map[string]*dto.MetricFamily) (ExporterSnapshot, error) {
	snap := ExporterSnapshot{}
	cluster, err := clusterFrom(fams, &snap)
	if err != nil {
		return ExporterSnapshot{}, err
	}
	v, err := capacity.Evaluate(cluster)
	if err != nil {
		return ExporterSnapshot{}, fmt.Errorf("exporter metrics: %w", err)
	}
	snap.Cluster, snap.Verdict, snap.Ceiling, snap.Effective = cluster, v, v.Ceiling, v.Effective
	if c, ok := single(fams[metricClusterCeiling]); ok {
		snap.Ceiling, snap.CeilingPublished = c, true
	}
	if e, ok := single(fams[metricClusterEffective]); ok {
		snap.Effective = int(e)
	}
	snap.Bottleneck = bottleneckOf(fams[metricBottleneck], v)
	return snap, nil
}

// clusterFrom reads the topology and service time; it records the per-stage
// figures it chose in snap.
func clusterFrom(fams map[string]*dto.MetricFamily, snap *ExporterSnapshot) (capacity.Cluster, error) {
	var c capacity.Cluster
	index := map[string]int{}
	for _, m := range fams[metricWorkerConcurrency].GetMetric() {
		name := label(m, "worker")
		index[name] = len(c.Workers)
		c.Workers = append(c.Workers, capacity.Worker{Name: name, Concurrency: int(MetricValue(m))})
	}
	if len(c.Workers) == 0 {
		return c, fmt.Errorf("exporter metrics: no %s series", metricWorkerConcurrency)
	}
	for _, m := range fams[metricRunnerMax].GetMetric() {
		i, ok := index[label(m, "worker")]
		if !ok {
			continue // a runner that reaches no known worker adds no capacity
		}
		c.Workers[i].Runners = append(c.Workers[i].Runners, capacity.Runner{Name: label(m, "runner"), Limit: int(MetricValue(m))})
	}
	snap.Job, snap.Task = serviceFigures(fams[metricServiceTime], usedSources(fams[metricServiceTimeUsed]))
	c.Service = serviceTime(snap.Job, snap.Task)
	return c, nil
}

// usedSources maps each stage to the source the exporter's ceiling uses.
func usedSources(f *dto.MetricFamily) map[string]string {
	used := map[string]string{}
	for _, m := range f.GetMetric() {
		if MetricValue(m) == 1 {
			used[label(m, "stage")] = label(m, "source")
		}
	}
	return used
}

// serviceFigures takes, per stage, the source the exporter marks as used,
// so the prediction matches the published ceiling; without a mark it takes
// the largest figure, the conservative choice when sources disagree.
func serviceFigures(f *dto.MetricFamily, used map[string]string) (job, task ServiceFigure) {
	for _, m := range f.GetMetric() {
		v := MetricValue(m)
		stage, src := label(m, "stage"), label(m, "source")
		if u, ok := used[stage]; (ok && u != src) || math.IsNaN(v) || v <= 0 {
			continue
		}
		switch {
		case stage == "job" && v > job.Seconds:
			job = ServiceFigure{v, src}
		case stage == "task" && v > task.Seconds:
			task = ServiceFigure{v, src}
		}
	}
	return job, task
}

// serviceTime is the model's input; a stage without a figure leaves the
// service time unknown.
func serviceTime(job, task ServiceFigure) capacity.ServiceTime {
	if job.Seconds <= 0 || task.Seconds <= 0 {
		return capacity.ServiceTime{}
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return capacity.ServiceTime{Job: sec(job.Seconds), Task: sec(task.Seconds)}
}

// bottleneckOf reads the per-worker flags (a worker without runner, which
// has none set, is "none"); with no flag published it falls back to the
// model. Workers that agree collapse to one word.
func bottleneckOf(f *dto.MetricFamily, v capacity.Verdict) string {
	per := map[string]string{}
	for _, m := range f.GetMetric() {
		if MetricValue(m) == 1 {
			per[label(m, "worker")] = label(m, "component")
		}
	}
	for _, w := range v.Workers {
		if len(per) > 0 && w.Bottleneck == capacity.BottleneckNone {
			per[w.Name] = string(w.Bottleneck)
		}
	}
	if len(per) == 0 {
		for _, w := range v.Workers {
			per[w.Name] = string(w.Bottleneck)
		}
	}
	kinds := map[string]bool{}
	parts := make([]string, 0, len(per))
	for w, b := range per {
		kinds[b] = true
		parts = append(parts, w+"="+b)
	}
	if len(kinds) == 1 {
		for k := range kinds {
			return k
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func single(f *dto.MetricFamily) (float64, bool) {
	ms := f.GetMetric()
	if len(ms) != 1 {
		return 0, false
	}
	return MetricValue(ms[0]), true
}

// MetricValue is a gauge's, counter's or untyped sample's value (0 for
// other types).
func MetricValue(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	default:
		return m.GetUntyped().GetValue()
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
