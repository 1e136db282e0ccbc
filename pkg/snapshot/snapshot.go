// Package snapshot reads the n8n-ceiling exporter's /metrics (or a broker
// probe's) into a typed Snapshot: workers with their runners, limits and
// verdict, cluster figures, service times with their sources, container
// memory, probe counts and queue depth. Model turns a snapshot into the
// capacity model the exporter's ceiling comes from. It is the one reader
// of that page; every metric name it reads comes from pkg/metricname.
package snapshot

// Snapshot is one scrape. A family the scrape lacks leaves its part
// empty: a probe's page has no workers, an exporter without a service time
// has no ceiling. Only a malformed page is an error.
type Snapshot struct {
	Workers    []Worker           // one per n8n_worker_concurrency series, in scrape order
	Unpaired   []Runner           // runner limits whose worker label names no worker
	Cluster    Cluster            // cluster-wide figures
	Service    []ServiceTime      // every n8n_service_time_seconds series
	Used       map[string]string  // stage → the source n8n_exporter_service_time_used marks 1
	Containers []Container        // in order of first appearance
	Probes     []Probe            // by probe label, in order of first appearance
	Queue      map[string]float64 // Bull jobs by state
	Resources  []Resource         // the bound analysis, in order of first appearance
}

// Resource is one resource of the bound analysis: slots or CPU, its
// servers, its demand per execution and its ceiling. Demand and Ceiling
// are absent while the demand is unknown.
type Resource struct {
	Name    string
	Servers Sample
	Alone   Sample // a process thread's cores with the host's to itself
	Demand  Sample // seconds per execution
	Ceiling Sample // executions per second
	// Background is cpu:host's cores busy with work that is not n8n's.
	Background Sample
	Binding    bool // n8n_cluster_bottleneck is 1 for it
}

// Resource is the resource named name; ok is false when no series names it.
func (s *Snapshot) Resource(name string) (Resource, bool) {
	for _, r := range s.Resources {
		if r.Name == name {
			return r, true
		}
	}
	return Resource{}, false
}

// Sample is a value the scrape may lack.
type Sample struct {
	Value float64
	OK    bool // the series was in the scrape
}

// Worker is one worker's series. Series that name no worker with a
// concurrency series are not kept, except runner limits (see Unpaired).
type Worker struct {
	Name        string
	Concurrency int      // 0 when Unlimited
	Unlimited   bool     // +Inf concurrency: a regular-mode main with no slot limit
	Runners     []Runner // runner limits naming this worker
	Capacity    Sample   // sum of its runners' limits; 0 = worker without runner
	Effective   Sample
	Bottleneck  string // the component flagged 1 ("runner" or "worker"); "" when neither is
	Ceiling     Sample // absent until the exporter knows a service time
}

// Runner is one n8n_runner_max_concurrency series.
type Runner struct {
	Name, Worker string
	Limit        int
}

// Cluster holds the cluster-wide figures. Effective and Ceiling count as
// published only as a single series.
type Cluster struct {
	Effective            Sample
	Ceiling              Sample
	WorkersWithoutRunner float64 // summed over its series
	Executions           Sample  // executions completed, a counter
}

// ServiceTime is one measured or configured service time.
type ServiceTime struct {
	Stage, Source string // stage job (worker slot) or task (runner slot)
	Seconds       float64
}

// Container is one container's memory and restart series.
type Container struct {
	Name, Role string
	WorkingSet Sample
	Limit      Sample // 0 = unlimited
	OOMKills   Sample // the cgroup's counter
	Restarts   Sample
	OOMKilled  Sample // 1 once Docker or the cgroup reports a kill
}

// Probe is one broker probe's series.
type Probe struct {
	Name          string
	TasksRunning  Sample
	TaskDuration  Histogram
	InferredLimit Sample
	Connections   map[string]float64 // by kind: runner, launcher
}

// Histogram is a histogram's sample sum and count.
type Histogram struct {
	Sum, Count float64
	OK         bool
}

// TasksRunning sums the probes' running tasks; ok is false when no probe
// reported any.
func (s *Snapshot) TasksRunning() (n float64, ok bool) {
	for _, p := range s.Probes {
		if p.TasksRunning.OK {
			n, ok = n+p.TasksRunning.Value, true
		}
	}
	return n, ok
}

// TaskDuration sums the probes' task-duration histograms.
func (s *Snapshot) TaskDuration() Histogram {
	var h Histogram
	for _, p := range s.Probes {
		if p.TaskDuration.OK {
			h = Histogram{Sum: h.Sum + p.TaskDuration.Sum, Count: h.Count + p.TaskDuration.Count, OK: true}
		}
	}
	return h
}
