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
	Cluster    capacity.Cluster
	Verdict    capacity.Verdict
	Ceiling    float64 // executions per second; the exporter's own figure when published
	Effective  int
	Bottleneck string // "runner", "worker", "none", or per worker when they differ
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
	cluster, err := clusterFrom(fams)
	if err != nil {
		return ExporterSnapshot{}, err
	}
	v, err := capacity.Evaluate(cluster)
	if err != nil {
		return ExporterSnapshot{}, fmt.Errorf("exporter metrics: %w", err)
	}
	snap := ExporterSnapshot{Cluster: cluster, Verdict: v, Ceiling: v.Ceiling, Effective: v.Effective}
	if c, ok := single(fams[metricClusterCeiling]); ok {
		snap.Ceiling = c
	}
	if e, ok := single(fams[metricClusterEffective]); ok {
		snap.Effective = int(e)
	}
	snap.Bottleneck = bottleneckOf(fams[metricBottleneck], v)
	return snap, nil
}

func clusterFrom(fams map[string]*dto.MetricFamily) (capacity.Cluster, error) {
	var c capacity.Cluster
	index := map[string]int{}
	for _, m := range fams[metricWorkerConcurrency].GetMetric() {
		name := label(m, "worker")
		index[name] = len(c.Workers)
		c.Workers = append(c.Workers, capacity.Worker{Name: name, Concurrency: int(value(m))})
	}
	if len(c.Workers) == 0 {
		return c, fmt.Errorf("exporter metrics: no %s series", metricWorkerConcurrency)
	}
	for _, m := range fams[metricRunnerMax].GetMetric() {
		i, ok := index[label(m, "worker")]
		if !ok {
			continue // a runner that reaches no known worker adds no capacity
		}
		c.Workers[i].Runners = append(c.Workers[i].Runners, capacity.Runner{Name: label(m, "runner"), Limit: int(value(m))})
	}
	c.Service = serviceTime(fams[metricServiceTime], usedSources(fams[metricServiceTimeUsed]))
	return c, nil
}

// usedSources maps each stage to the source the exporter's ceiling uses.
func usedSources(f *dto.MetricFamily) map[string]string {
	used := map[string]string{}
	for _, m := range f.GetMetric() {
		if value(m) == 1 {
			used[label(m, "stage")] = label(m, "source")
		}
	}
	return used
}

// serviceTime takes, per stage, the source the exporter marks as used, so
// the prediction matches the published ceiling; without a mark it takes
// the largest figure, the conservative choice when sources disagree. A
// stage without a figure leaves the service time unknown.
func serviceTime(f *dto.MetricFamily, used map[string]string) capacity.ServiceTime {
	var job, task float64
	for _, m := range f.GetMetric() {
		v := value(m)
		stage := label(m, "stage")
		if src, ok := used[stage]; (ok && src != label(m, "source")) || math.IsNaN(v) || v <= 0 {
			continue
		}
		switch stage {
		case "job":
			job = max(job, v)
		case "task":
			task = max(task, v)
		}
	}
	if job <= 0 || task <= 0 {
		return capacity.ServiceTime{}
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return capacity.ServiceTime{Job: sec(job), Task: sec(task)}
}

// bottleneckOf reads the per-worker flags; with none published it falls
// back to the model. Workers that agree collapse to one word.
func bottleneckOf(f *dto.MetricFamily, v capacity.Verdict) string {
	per := map[string]string{}
	for _, m := range f.GetMetric() {
		if value(m) == 1 {
			per[label(m, "worker")] = label(m, "component")
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
	return value(ms[0]), true
}

func value(m *dto.Metric) float64 {
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
