package collector

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/queue"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// measureJobTime collects the worker-stage time from Redis (Little's law)
// and from n8n's execution histogram. Both count the time a job waits for
// a runner slot. The Redis sampler keeps its last estimate taken while no
// runner was saturated (with no probe: while no job waited); the n8n
// sampler (n8nsampler.go)
// keeps its last delta judged clean. A scrape only reads what they hold.
func (c *Collector) measureJobTime(r *Report) {
	if c.cfg.Sampler != nil {
		if e, ok, _ := c.cfg.Sampler.JobTime(); ok {
			r.Measured = append(r.Measured, ServiceTime{Stage: StageJob, Source: SourceRedis, Time: e.JobTime, Note: littleNote(e, r.At)})
		}
	}
	url := c.cfg.N8nMetricsURL
	if url == "" {
		url = discoverMetricsURL(r.Topology.Mains)
	}
	smp := c.n8n.read(url)
	if smp == nil {
		return
	}
	r.addSource(smp.source)
	if smp.measured != nil {
		r.Measured = append(r.Measured, *smp.measured)
	}
	if smp.skipped != "" {
		r.Skipped = append(r.Skipped, smp.skipped)
	}
}

// littleNote says how the Redis estimate was made, and that it is held
// when its clean run ended a while ago.
func littleNote(e queue.Estimate, now time.Time) string {
	note := fmt.Sprintf("Little's law: %.2f jobs held by live workers / %.2f jobs/s over %s", e.MeanActive, e.Rate, e.Span.Round(time.Second))
	if age := now.Sub(e.At); age > heldAfter {
		note += fmt.Sprintf("; held for %s (since then a runner was saturated, jobs waited with no probe to watch the runners, or none completed)", age.Round(time.Second))
	}
	return note
}

// heldAfter is the age past which the landing page calls an estimate held.
const heldAfter = 5 * time.Second

// n8nDirty says why the executions since the last n8n read may include
// waiting for a runner, or "" when nothing says so. n8n starts the clock at
// worker pickup, so time in Redis's wait list is not in it; but without a
// probe to watch the runners, jobs waiting in Redis (now, or in a Redis
// sampler reading since the last call) are the only sign that they may be
// full.
func (c *Collector) n8nDirty(ctx context.Context) string {
	if len(c.probeStats()) > 0 {
		return ""
	}
	if c.cfg.Sampler != nil && c.cfg.Sampler.BusySinceLast() || c.jobsWaiting(ctx) {
		return "jobs waited in Redis"
	}
	return ""
}

// jobsWaiting reads Bull's wait list now; an unreadable queue says nothing.
func (c *Collector) jobsWaiting(ctx context.Context) bool {
	if c.cfg.Queue == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	depth, err := c.cfg.Queue.Depth(ctx)
	return err == nil && depth["waiting"] > 0
}

// discoverMetricsURL points at main's N8N_PORT: loopback on host
// networking, else its first IP.
func discoverMetricsURL(mains []topology.Process) string {
	for _, m := range mains {
		if !m.Settings.N8nPort.Known() {
			continue
		}
		port := strconv.Itoa(m.Settings.N8nPort.Value)
		switch {
		case m.Net.Host:
			return "http://" + net.JoinHostPort("127.0.0.1", port) + "/metrics"
		case m.Net.IP() != "":
			return "http://" + net.JoinHostPort(m.Net.IP(), port) + "/metrics"
		}
	}
	return ""
}

// jobStandsIn notes a task time that is the job time.
const jobStandsIn = "no probe: the job time stands in"

// chooseServiceTime picks per stage: the override, else the first
// measurement (redis before n8n for the job: Little's law over the jobs
// live workers hold spans the whole slot hold, pickup to completion, while
// n8n's histogram starts after pickup and ends before the result is
// saved). A single-stage measurement
// stands in for the other stage, as for a Code-only workflow. A job holds
// its worker slot at least as long as its task holds a runner slot, so a
// job time below the task time is noise and the task time stands in.
func (c *Collector) chooseServiceTime(r *Report) capacity.ServiceTime {
	r.Used = map[Stage]ServiceTime{}
	if d := c.cfg.ServiceTime; d > 0 {
		for _, st := range Stages {
			m := ServiceTime{Stage: st, Source: SourceConfig, Time: d, Note: "EXPORTER_SERVICE_TIME"}
			r.Measured = append(r.Measured, m)
			r.Used[st] = m
		}
		return capacity.Single(d)
	}
	for _, m := range r.Measured {
		if _, ok := r.Used[m.Stage]; !ok {
			r.Used[m.Stage] = m
		}
	}
	job, hasJob := r.Used[StageJob]
	task, hasTask := r.Used[StageTask]
	switch {
	case hasJob && !hasTask:
		task = job
		task.Stage, task.Note = StageTask, jobStandsIn
		r.Used[StageTask] = task
	case hasTask && (!hasJob || job.Time < task.Time):
		note := "no job measurement: the task time stands in"
		if hasJob {
			note = fmt.Sprintf("the job measurement (%s from %s) is below the task time, so the task time stands in", seconds(job.Time), job.Source)
		}
		job = task
		job.Stage, job.Note = StageJob, note
		r.Used[StageJob] = job
	}
	return capacity.ServiceTime{Job: job.Time, Task: task.Time}
}

// evaluate runs the capacity model over the discovered workers.
func (c *Collector) evaluate(r *Report) {
	service := c.chooseServiceTime(r)
	if len(r.Topology.Workers) == 0 {
		return
	}
	v, err := evaluateType(r.Topology, service, topology.TaskJavaScript)
	if err != nil {
		r.VerdictErr = err.Error()
		return
	}
	r.Verdict = &v
	r.Types = []TypeVerdict{{Type: topology.TaskJavaScript, Verdict: v}}
	for _, typ := range taskTypes(r.Topology)[1:] {
		if v, err := evaluateType(r.Topology, service, typ); err == nil {
			r.Types = append(r.Types, TypeVerdict{Type: typ, Verdict: v})
		}
	}
}

// evaluateType is the slot model with the runners' slots of one task
// type: the verdict were every Code task of that type.
func evaluateType(t topology.Topology, service capacity.ServiceTime, typ topology.TaskType) (capacity.Verdict, error) {
	cl, err := cluster(t, service, typ)
	if err != nil {
		return capacity.Verdict{}, err
	}
	return capacity.Evaluate(cl)
}

// cluster is the capacity model's input, with the runners' slots of
// task type typ; a setting the platform could not read leaves no verdict
// rather than a guessed one.
func cluster(t topology.Topology, service capacity.ServiceTime, typ topology.TaskType) (capacity.Cluster, error) {
	cl := capacity.Cluster{Service: service}
	index := map[string]int{}
	for i, w := range t.Workers {
		cw, err := modelWorker(w, typ)
		if err != nil {
			return cl, err
		}
		cl.Workers = append(cl.Workers, cw)
		index[w.Worker.ID] = i
	}
	for _, s := range t.Spread {
		sr, err := modelSpread(s, index, typ)
		if err != nil {
			return cl, err
		}
		if len(sr.Candidates) > 0 && sr.Limit > 0 {
			cl.Spread = append(cl.Spread, sr)
		}
	}
	return cl, nil
}

// modelSpread is a runner spread over several mains and workers as the
// model sees it: the production workers among them, and whether it may
// serve another main instead.
func modelSpread(s topology.Spread, index map[string]int, typ topology.TaskType) (capacity.SpreadRunner, error) {
	limit := limitOf(s.Runner, typ)
	if !limit.Known() {
		return capacity.SpreadRunner{}, fmt.Errorf("runner %s: limit unknown (%s)", s.Runner.Name, limit.Unknown)
	}
	sr := capacity.SpreadRunner{Name: s.Runner.Name, Limit: limit.Value}
	for _, c := range s.Candidates {
		if i, ok := index[c.ID]; ok {
			sr.Candidates = append(sr.Candidates, i)
		} else {
			sr.Elsewhere = true
		}
	}
	return sr, nil
}

// modelWorker is one main or worker as the model sees it. Whether a
// process with no runner attached launches one of its own is unknown when
// its N8N_RUNNERS_MODE is. A runner with no slot of type typ is not one
// of its runners for that type.
func modelWorker(w topology.WorkerNode, typ topology.TaskType) (capacity.Worker, error) {
	p := w.Worker
	name := string(p.Role) + " " + p.InstanceName()
	conc, mode := p.Settings.Concurrency, p.Settings.RunnersMode
	switch {
	case !conc.Known():
		return capacity.Worker{}, fmt.Errorf("%s: concurrency unknown (%s)", name, conc.Unknown)
	case !p.Settings.Pool.Known():
		return capacity.Worker{}, fmt.Errorf("%s: whether it takes its jobs from a worker pool's queue is unknown (%s)", name, p.Settings.Pool.Unknown)
	case !mode.Known() && len(w.Runners) == 0:
		return capacity.Worker{}, fmt.Errorf("%s: no runner reaches it and its runner mode is unknown (%s)", name, mode.Unknown)
	}
	cw := capacity.Worker{Name: p.InstanceName(), Concurrency: conc.Value, Unlimited: conc.Value == topology.NoLimit}
	for _, a := range w.Runners {
		limit := limitOf(a.Runner, typ)
		switch {
		case !limit.Known():
			return cw, fmt.Errorf("runner %s: limit unknown (%s)", a.Runner.Name, limit.Unknown)
		case limit.Value > 0:
			cw.Runners = append(cw.Runners, capacity.Runner{Name: a.Runner.Name, Limit: limit.Value})
		}
	}
	return cw, nil
}
