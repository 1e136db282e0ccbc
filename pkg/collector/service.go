package collector

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats"
)

// measureJobTime collects the worker-stage time from Redis (Little's law)
// and from n8n's execution histogram.
func (c *Collector) measureJobTime(ctx context.Context, r *Report) {
	if c.cfg.Sampler != nil {
		if e, ok, _ := c.cfg.Sampler.JobTime(); ok {
			r.Measured = append(r.Measured, ServiceTime{Stage: "job", Source: "redis", Time: e.JobTime,
				Note: fmt.Sprintf("Little's law: %.2f active / %.2f jobs/s over %s", e.MeanActive, e.Rate, e.Span.Round(time.Second))})
		}
	}
	url := c.cfg.N8nMetricsURL
	if url == "" {
		url = discoverMetricsURL(r.Topology.Mains)
	}
	if url == "" {
		return
	}
	r.addSource(timed(ctx, "n8n", c.cfg.Timeout, func(ctx context.Context) error {
		d, note, err := c.n8n.read(ctx, url)
		if err == nil && d > 0 {
			r.Measured = append(r.Measured, ServiceTime{Stage: "job", Source: "n8n", Time: d, Note: note})
		}
		return err
	}))
}

// discoverMetricsURL points at main's N8N_PORT: loopback on host
// networking, else its first IP.
func discoverMetricsURL(mains []dockerstats.Container) string {
	for _, m := range mains {
		port := strconv.Itoa(m.N8nPort)
		switch {
		case m.HostNetwork():
			return "http://" + net.JoinHostPort("127.0.0.1", port) + "/metrics"
		case len(m.IPs) > 0:
			return "http://" + net.JoinHostPort(m.IPs[0], port) + "/metrics"
		}
	}
	return ""
}

// measureTaskTime takes the runner-stage time from the probes: the mean of
// their recent task means, weighted by task count.
func (c *Collector) measureTaskTime(r *Report) {
	if len(c.cfg.Probes) == 0 {
		return
	}
	var weighted float64
	var tasks int
	for _, p := range c.cfg.Probes {
		s := p.Stats()
		weighted += s.RecentTaskMean.Seconds() * float64(s.RecentTaskCount)
		tasks += s.RecentTaskCount
	}
	if tasks > 0 {
		r.Measured = append(r.Measured, ServiceTime{Stage: "task", Source: "probe",
			Time: time.Duration(weighted / float64(tasks) * float64(time.Second)),
			Note: fmt.Sprintf("mean of the last %d tasks seen by the broker probe", tasks)})
	}
}

// chooseServiceTime picks per stage: the override, else the first
// measurement (redis before n8n for the job). A single-stage measurement
// stands in for the other stage, as for a Code-only workflow.
func (c *Collector) chooseServiceTime(r *Report) capacity.ServiceTime {
	r.Used = map[string]ServiceTime{}
	if d := c.cfg.ServiceTime; d > 0 {
		for _, st := range []string{"job", "task"} {
			m := ServiceTime{Stage: st, Source: "config", Time: d, Note: "EXPORTER_SERVICE_TIME"}
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
	job, hasJob := r.Used["job"]
	task, hasTask := r.Used["task"]
	switch {
	case hasJob && !hasTask:
		task = job
		task.Stage, task.Note = "task", "no probe: the job time stands in"
		r.Used["task"] = task
	case hasTask && !hasJob:
		job = task
		job.Stage, job.Note = "job", "no job measurement: the task time stands in"
		r.Used["job"] = job
	}
	return capacity.ServiceTime{Job: job.Time, Task: task.Time}
}

// evaluate runs the capacity model over the discovered workers.
func (c *Collector) evaluate(r *Report) {
	service := c.chooseServiceTime(r)
	if len(r.Topology.Workers) == 0 {
		return
	}
	cl := capacity.Cluster{Service: service}
	for _, w := range r.Topology.Workers {
		cw := capacity.Worker{Name: w.Worker.Name, Concurrency: w.Worker.Concurrency}
		for _, a := range w.Runners {
			cw.Runners = append(cw.Runners, capacity.Runner{Name: a.Runner.Name, Limit: a.Runner.RunnerLimit})
		}
		cl.Workers = append(cl.Workers, cw)
	}
	v, err := capacity.Evaluate(cl)
	if err != nil {
		r.VerdictErr = err.Error()
		return
	}
	r.Verdict = &v
}
