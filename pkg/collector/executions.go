package collector

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Where the execution count for the CPU demands comes from.
const (
	CountRedis = "redis" // Bull's job-id counter minus the jobs still queued
	CountN8n   = "n8n"   // the count of n8n's execution histogram on main's /metrics
	CountProbe = "probe" // the Code tasks the broker probes saw done
)

// errNotCounted: queue mode without Redis, where nothing counts every
// execution.
var errNotCounted = errors.New("no Redis to count queue-mode executions")

// executionCounter counts completed executions for the CPU demands. In
// queue mode Bull counts them; with no queue (only regular-mode mains)
// n8n's histogram does, where main's /metrics answers, else the probes'
// completed tasks (one Code task per execution).
type executionCounter struct {
	redis   ExecutionCounter // nil: no Redis
	c       *Collector
	regular atomic.Bool // the last gather found regular-mode mains and no queue-mode worker
}

// completed returns the count at now and its source (Count…). Redis is
// read in every mode: its reading is the Redis sampler's too.
func (e *executionCounter) completed(ctx context.Context, now time.Time) (float64, string, error) {
	var n float64
	var err error
	if e.redis != nil {
		n, err = e.redis.Completed(ctx, now)
	}
	if !e.regular.Load() {
		if e.redis == nil {
			return 0, "", errNotCounted
		}
		return n, CountRedis, err
	}
	if url := e.c.n8n.target(); url != "" {
		h, err := e.c.n8n.d.fetch(ctx, url)
		switch {
		case err == nil:
			return float64(h.count), CountN8n, nil
		case !e.c.hasProbes():
			return 0, CountN8n, err
		}
	}
	if !e.c.hasProbes() {
		return 0, "", errors.New("no execution count: main's /metrics is not known and no broker probe runs")
	}
	var done uint64
	for _, p := range e.c.probeStats() {
		done += p.Stats().TasksDone
	}
	return float64(done), CountProbe, nil
}

// follow takes the shape the last gather found.
func (e *executionCounter) follow(t topology.Topology) { e.regular.Store(regularOnly(t)) }

// regularOnly reports whether every process that runs production
// executions is a regular-mode main.
func regularOnly(t topology.Topology) bool {
	for _, w := range t.Workers {
		if w.Worker.Role != topology.RoleMain {
			return false
		}
	}
	return len(t.Workers) > 0
}

// hasProbes reports whether any broker probe is read.
func (c *Collector) hasProbes() bool { return len(c.probeStats()) > 0 }

// countNote says on / where the execution count comes from.
func countNote(from string) string {
	switch from {
	case CountRedis:
		return "executions counted from Bull's job-id counter less the jobs still queued (Redis)"
	case CountN8n:
		return "executions counted from n8n's own n8n_workflow_execution_duration_seconds count on main's /metrics (no Bull queue in regular mode)"
	case CountProbe:
		return "executions counted from the Code tasks the broker probes saw done (no Bull queue in regular mode, and main's /metrics did not answer)"
	}
	return ""
}
