package snapshot

import (
	"fmt"
	"io"
	"math"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Parse reads the Prometheus text format into a snapshot.
func Parse(in io.Reader) (*Snapshot, error) {
	fams, err := parseFamilies(in)
	if err != nil {
		return nil, err
	}
	return FromFamilies(fams), nil
}

func parseFamilies(in io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(in)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return fams, nil
}

// families is a parsed scrape, by metric name.
type families map[string]*dto.MetricFamily

// FromFamilies builds a snapshot from an already parsed scrape.
func FromFamilies(fams map[string]*dto.MetricFamily) *Snapshot {
	f := families(fams)
	s := &Snapshot{Used: map[string]string{}, Queue: map[string]float64{}}
	f.workers(s)
	f.cluster(s)
	f.service(s)
	f.containers(s)
	f.probes(s)
	f.resources(s)
	for _, x := range f.series(metricname.QueueJobs) {
		s.Queue[label(x, "state")] = value(x)
	}
	return s
}

func (f families) series(name string) []*dto.Metric { return f[name].GetMetric() }

// workers reads the per-worker families. A runner whose worker label names
// no worker is unpaired.
func (f families) workers(s *Snapshot) {
	index := map[string]int{}
	for _, x := range f.series(metricname.WorkerConcurrency) {
		name := label(x, "worker")
		index[name] = len(s.Workers)
		w := Worker{Name: name, Unlimited: math.IsInf(value(x), 1)}
		if !w.Unlimited {
			w.Concurrency = int(value(x))
		}
		s.Workers = append(s.Workers, w)
	}
	for _, x := range f.series(metricname.RunnerMaxConcurrency) {
		r := Runner{Name: label(x, "runner"), Worker: label(x, "worker"), Limit: int(value(x))}
		if i, ok := index[r.Worker]; ok {
			s.Workers[i].Runners = append(s.Workers[i].Runners, r)
		} else {
			s.Unpaired = append(s.Unpaired, r)
		}
	}
	each := func(name string, set func(w *Worker, x *dto.Metric)) {
		for _, x := range f.series(name) {
			if i, ok := index[label(x, "worker")]; ok {
				set(&s.Workers[i], x)
			}
		}
	}
	each(metricname.WorkerRunnerCapacity, func(w *Worker, x *dto.Metric) { w.Capacity = sample(x) })
	each(metricname.WorkerEffectiveConcurrency, func(w *Worker, x *dto.Metric) { w.Effective = sample(x) })
	each(metricname.WorkerCeiling, func(w *Worker, x *dto.Metric) { w.Ceiling = sample(x) })
	each(metricname.WorkerBottleneck, func(w *Worker, x *dto.Metric) {
		if value(x) == 1 {
			w.Bottleneck = label(x, "component")
		}
	})
}

func (f families) cluster(s *Snapshot) {
	s.Cluster.Effective = single(f[metricname.ClusterEffectiveConcurrency])
	s.Cluster.Ceiling = single(f[metricname.ClusterCeiling])
	for _, x := range f.series(metricname.ClusterWorkersWithoutRunner) {
		s.Cluster.WorkersWithoutRunner += value(x)
	}
	s.Cluster.Executions = single(f[metricname.ClusterExecutions])
}

// resources reads the bound analysis; a resource takes its place from the
// first series that names it.
func (f families) resources(s *Snapshot) {
	index := map[string]int{}
	each := func(name string, set func(r *Resource, x *dto.Metric)) {
		for _, x := range f.series(name) {
			set(entry(&s.Resources, index, label(x, "resource"), func(n string) Resource { return Resource{Name: n} }), x)
		}
	}
	each(metricname.ResourceServers, func(r *Resource, x *dto.Metric) { r.Servers = sample(x) })
	each(metricname.ResourceAlone, func(r *Resource, x *dto.Metric) { r.Alone = sample(x) })
	each(metricname.ResourceDemand, func(r *Resource, x *dto.Metric) { r.Demand = sample(x) })
	each(metricname.ResourceCeiling, func(r *Resource, x *dto.Metric) { r.Ceiling = sample(x) })
	each(metricname.ResourceBackground, func(r *Resource, x *dto.Metric) { r.Background = sample(x) })
	each(metricname.ClusterBottleneck, func(r *Resource, x *dto.Metric) { r.Binding = value(x) == 1 })
}

func (f families) service(s *Snapshot) {
	for _, x := range f.series(metricname.ServiceTime) {
		s.Service = append(s.Service, ServiceTime{Stage: label(x, "stage"), Source: label(x, "source"), Seconds: value(x)})
	}
	for _, x := range f.series(metricname.ServiceTimeUsed) {
		if value(x) == 1 {
			s.Used[label(x, "stage")] = label(x, "source")
		}
	}
}

// containers reads memory and restarts. A container takes its role from
// the first series that names it.
func (f families) containers(s *Snapshot) {
	index := map[string]int{}
	each := func(name string, set func(c *Container, v Sample)) {
		for _, x := range f.series(name) {
			c := entry(&s.Containers, index, label(x, "container"), func(n string) Container {
				return Container{Name: n, Role: label(x, "role")}
			})
			set(c, sample(x))
		}
	}
	each(metricname.ContainerWorkingSet, func(c *Container, v Sample) { c.WorkingSet = v })
	each(metricname.ContainerMemoryLimit, func(c *Container, v Sample) { c.Limit = v })
	each(metricname.ContainerOOMKills, func(c *Container, v Sample) { c.OOMKills = v })
	each(metricname.ContainerRestarts, func(c *Container, v Sample) { c.Restarts = v })
	each(metricname.ContainerOOMKilled, func(c *Container, v Sample) { c.OOMKilled = v })
}

// probes reads the broker probes' series with the probe's own decoder;
// several series of one probe add up.
func (f families) probes(s *Snapshot) {
	for _, r := range brokerprobe.Decode(f) {
		p := Probe{Name: r.Name, TasksRunning: Sample{float64(r.Running), r.HasRunning},
			TaskDuration:  Histogram{r.TaskSum, float64(r.TaskCount), r.HasDuration},
			InferredLimit: Sample{float64(r.InferredLimit), r.HasLimit}, Connections: map[string]float64{}}
		if r.HasConnections {
			p.Connections["runner"], p.Connections["launcher"] = float64(r.RunnerConnections), float64(r.LauncherConnections)
		}
		s.Probes = append(s.Probes, p)
	}
}

// entry returns the element of list named key, appending one made by
// fresh on first sight; index keeps list's order of first appearance.
func entry[T any](list *[]T, index map[string]int, key string, fresh func(string) T) *T {
	i, ok := index[key]
	if !ok {
		i = len(*list)
		index[key] = i
		*list = append(*list, fresh(key))
	}
	return &(*list)[i]
}

func sample(x *dto.Metric) Sample { return Sample{Value: value(x), OK: true} }

// single is a family's value when it has exactly one series.
func single(f *dto.MetricFamily) Sample {
	ms := f.GetMetric()
	if len(ms) != 1 {
		return Sample{}
	}
	return sample(ms[0])
}

// value is a gauge's, counter's or untyped sample's value (0 for other
// types).
func value(x *dto.Metric) float64 {
	switch {
	case x.Gauge != nil:
		return x.GetGauge().GetValue()
	case x.Counter != nil:
		return x.GetCounter().GetValue()
	default:
		return x.GetUntyped().GetValue()
	}
}

func label(x *dto.Metric, name string) string {
	for _, l := range x.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
