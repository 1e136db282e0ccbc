package collector

import (
	"context"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/ticker"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/demand"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/hostcpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// CPUReader reads one process's cgroup CPU time and quota
// (cgroup.Reader through dockerstats.CgroupCPU).
type CPUReader interface {
	CPU(p topology.Process) (topology.CPU, error)
}

// ExecutionCounter counts the executions completed by at, taking a
// reading then (queue.Sampler: the CPU sampler's tick is the Redis
// sampler's, so one round trip feeds the job time and the demands).
type ExecutionCounter interface {
	Completed(ctx context.Context, at time.Time) (float64, error)
}

// CPUConfig wires the CPU demand sampler. Executions (Redis) counts
// queue-mode executions, read at every tick whatever the mode; nil when
// there is no Redis, where regular mode
// still counts from n8n's histogram or the probes. CPU (per container),
// Procs (per process, for the containers whose n8n process launches its
// runner) and Host (/proc/stat) are each optional.
type CPUConfig struct {
	Executions ExecutionCounter
	CPU        CPUReader
	Procs      ProcessReader
	Host       func() (hostcpu.Times, error)
	// Backing reads the CPU seconds of n8n's backing services on the
	// host, by service (proccpu.BackingReader); optional.
	Backing  func() (map[string]float64, error)
	Interval time.Duration // between readings (default 1s)
	Window   time.Duration // of the demand estimate (default 30s)
	// MaxWindow is how far back a window stretches to hold MinExecutions
	// (default 4 × Window: a workflow of 0.25 executions a second).
	MaxWindow time.Duration
	// ProcessCores is the CPU one n8n process can use, in cores (default
	// capacity.DefaultProcessCores).
	ProcessCores float64
	// MinExecutions is the fewest executions a window needs before its
	// demands are published (default 30: one execution more or less then
	// moves a demand by 3 %).
	MinExecutions float64
	// Threads makes each Node process's resource its main thread, where
	// JavaScript runs, and reads every container's processes apart; off,
	// a process's resource is its whole CPU and only the hosts of
	// internal runners are read apart (EXPORTER_PROCESS_CPU).
	Threads bool
}

// cpuSampler reads the execution counter and every CPU counter together,
// once per Interval, in the background: a demand is a ratio of two
// deltas over the same window, so both must be read at the same moments,
// and scrapes (every 15–60 s, at times the scraper picks) cannot give that.
// The processes to read come from the last gather (point), and from the
// collector's own discovery every refreshEvery (follow.go), so CPU is
// read before the first scrape and follows containers that come and go
// between scrapes.
type cpuSampler struct {
	cfg   CPUConfig
	count *executionCounter

	mu       sync.Mutex
	procs    []topology.Process
	internal map[string]bool // the IDs of the processes that launch a runner of their own; looked up for procs
	tracker  demand.Tracker
	from     string    // the source of the counts in the tracker's window
	counted  time.Time // when from last counted
	view     cpuView
	// splits are the per-process counters of the internal hosts, by
	// container name; only step uses them.
	splits map[string]*splitCounter
}

// cpuView is what a scrape reports of the sampler.
type cpuView struct {
	estimate demand.Estimate
	has      bool   // estimate is set
	waiting  string // why the current window gives no estimate
	cores    int    // online CPUs, 0 when /proc/stat is unreadable
	// completed is the execution counter's last value; counted says it
	// was read.
	completed   float64
	counted     bool
	countedFrom string // the count's source (Count…), "" when not counted
	quota       map[string]float64
	// split maps each container read apart (the internal hosts, or every
	// one with Threads) to "" when its processes were read, else why not;
	// by container CPU name.
	split  map[string]string
	source map[string]SourceResult // executions, cpu and procstat: the last reading's outcome
	// backing is "" when the backing services were read, else why not.
	backing string
}

func newCPUSampler(cfg CPUConfig, count *executionCounter) *cpuSampler {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Window <= 0 {
		cfg.Window = 30 * time.Second
	}
	if cfg.MaxWindow <= 0 {
		cfg.MaxWindow = 4 * cfg.Window
	}
	if cfg.MinExecutions <= 0 {
		cfg.MinExecutions = 30
	}
	if cfg.ProcessCores <= 0 {
		cfg.ProcessCores = capacity.DefaultProcessCores
	}
	s := &cpuSampler{cfg: cfg, count: count, splits: map[string]*splitCounter{}}
	s.newWindow()
	return s
}

// point sets the processes whose CPU the next readings take.
func (s *cpuSampler) point(ps []topology.Process) {
	t := topology.Pair(ps)
	pooled := t.PoolIDs()
	var keep []topology.Process
	for _, p := range ps {
		if sampled(p) && !pooled[p.ID] {
			keep = append(keep, p)
		}
	}
	internal := internalHosts(t)
	s.mu.Lock()
	s.procs, s.internal = keep, internal
	s.mu.Unlock()
}

// sampled says whether the sampler reads p's CPU: a running n8n process,
// not a probe. point also leaves out the pool workers and their runners,
// whose work is not the default queue's: the host counts their CPU as
// background.
func sampled(p topology.Process) bool { return p.State.Running && p.Role != topology.RoleProbe }

// run reads every Interval until ctx ends.
func (s *cpuSampler) run(ctx context.Context) {
	ticker.Every(ctx, s.cfg.Interval, func(now time.Time) { s.step(ctx, now) })
}

// step takes one reading at now. A failed execution count skips the
// reading; a failed CPU counter leaves that resource out of it.
func (s *cpuSampler) step(ctx context.Context, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Interval)
	defer cancel()
	s.mu.Lock()
	procs, internal := s.procs, s.internal
	s.mu.Unlock()
	r := demand.Reading{At: now, CPU: map[string]float64{}}
	v := cpuView{quota: map[string]float64{}, split: map[string]string{}, source: map[string]SourceResult{}}
	counts := s.countExecutions(ctx, now, &r, &v)
	if s.cfg.Host != nil {
		v.source["procstat"] = timed(ctx, "procstat", s.cfg.Interval, func(context.Context) error {
			h, err := s.cfg.Host()
			if err == nil {
				r.CPU[capacity.HostCPU], r.CPU[hostSteal], v.cores = h.Busy, h.Steal, h.Cores
			}
			return err
		})
	}
	if s.cfg.Backing != nil {
		res := timed(ctx, "backing", s.cfg.Interval, func(context.Context) error { return readBacking(s.cfg.Backing, r.CPU) })
		v.source["backing"], v.backing = res, res.Err
	}
	if s.cfg.CPU != nil && len(procs) > 0 {
		v.source["cpu"] = timed(ctx, "cpu", s.cfg.Interval, func(context.Context) error {
			return s.readProcs(procs, internal, now, r.CPU, &v)
		})
	}
	s.forgetSplits(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.counted {
		s.track(v.countedFrom, r)
	}
	if !counts {
		s.newWindow()
	}
	v.estimate, v.has, v.waiting = s.tracker.Last()
	if !counts {
		v.waiting = errNotCounted.Error()
	}
	s.view = v
}

// countExecutions reads the execution count into r. counts is false in
// queue mode without Redis, which counts nothing and is no source.
func (s *cpuSampler) countExecutions(ctx context.Context, now time.Time, r *demand.Reading, v *cpuView) (counts bool) {
	var from string
	res := timed(ctx, "executions", s.cfg.Interval, func(ctx context.Context) (err error) {
		r.Executions, from, err = s.count.completed(ctx, now)
		return err
	})
	if res.Err == errNotCounted.Error() {
		return false
	}
	v.source["executions"] = res
	v.completed, v.counted, v.countedFrom = r.Executions, res.Up, from
	return true
}

func (s *cpuSampler) newWindow() {
	s.tracker, s.from = demand.Tracker{Window: s.cfg.Window, MaxWindow: s.cfg.MaxWindow, MinExecutions: s.cfg.MinExecutions}, ""
}

// track adds r to the window; a count from another source than the
// window's starts a new window, since the two counters differ. The
// probes' count is the fallback for main's /metrics: while the window
// counts from main and main last answered less than a Window ago, a
// reading the probes counted is skipped, so that one slow answer from a
// busy main does not drop every demand.
func (s *cpuSampler) track(from string, r demand.Reading) {
	switch {
	case from == s.from:
	case from == CountProbe && s.from == CountN8n && r.At.Sub(s.counted) < s.cfg.Window:
		return
	default:
		s.newWindow()
		s.from = from
	}
	s.counted = r.At
	s.tracker.Add(r)
}

// readProcs reads each container's CPU time and quota, and the processes
// of the internal hosts (with Threads, of every container) apart.
func (s *cpuSampler) readProcs(procs []topology.Process, internal map[string]bool, now time.Time, cpu map[string]float64, v *cpuView) error {
	var errs []error
	for _, p := range procs {
		c, err := s.cfg.CPU.CPU(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name := capacity.ContainerCPU(p.Name)
		cpu[name], v.quota[name] = c.Seconds, c.Quota
		if internal[p.ID] || s.cfg.Threads {
			v.split[name] = s.readSplit(p, now, cpu)
		}
	}
	return summarize(errs, len(procs))
}

// latest returns the last reading's view.
func (s *cpuSampler) latest() cpuView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}
