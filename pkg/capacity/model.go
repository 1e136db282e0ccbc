package capacity

import (
	"errors"
	"fmt"
	"time"
)

// Runner is one task runner process and its N8N_RUNNERS_MAX_CONCURRENCY.
type Runner struct {
	Name  string
	Limit int
}

// Worker is one `n8n worker` with its --concurrency and the runners that
// serve its broker, or a regular-mode main, the worker of its own cluster.
type Worker struct {
	Name        string
	Concurrency int
	// Unlimited marks a worker with no slot limit (a regular-mode main
	// without N8N_CONCURRENCY_PRODUCTION_LIMIT): only its runners bound
	// it, and Concurrency is ignored.
	Unlimited bool
	Runners   []Runner
}

// ServiceTime is how long one execution holds each kind of slot. Job is the
// worker stage (Bull pickup to completion), Task the runner stage (task
// accept to done). Zero means unknown; a Code-only workflow has them equal.
type ServiceTime struct {
	Job  time.Duration
	Task time.Duration
}

// Single returns a ServiceTime whose two stages are both t.
func Single(t time.Duration) ServiceTime { return ServiceTime{Job: t, Task: t} }

// Known reports whether both stages are set, so a ceiling can be computed.
func (s ServiceTime) Known() bool { return s.Job > 0 && s.Task > 0 }

// Cluster is the model's whole input.
type Cluster struct {
	Workers []Worker
	Service ServiceTime
	// Spread are the runners whose worker is one of several.
	Spread []SpreadRunner
}

// Bottleneck names the side that limits a worker.
type Bottleneck string

// The sides that can limit a worker.
const (
	// BottleneckRunner: the runners' slots allow fewer executions a second
	// than the worker's.
	BottleneckRunner Bottleneck = "runner"
	// BottleneckWorker: the worker's slots allow no more than its
	// runners' (a tie names the worker).
	BottleneckWorker Bottleneck = "worker"
	// BottleneckNone marks a worker without a runner: its Code tasks wait
	// for N8N_RUNNERS_TASK_REQUEST_TIMEOUT and then fail.
	BottleneckNone Bottleneck = "none"
)

// ErrInvalid wraps every input error, so callers can tell bad input apart.
var ErrInvalid = errors.New("invalid capacity input")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Validate rejects inputs the model cannot reason about.
func (c Cluster) Validate() error {
	if len(c.Workers) == 0 {
		return invalid("no workers")
	}
	for i, w := range c.Workers {
		name := workerLabel(i, w.Name)
		if w.Concurrency <= 0 && !w.Unlimited {
			return invalid("worker %s: concurrency must be positive, got %d", name, w.Concurrency)
		}
		for j, r := range w.Runners {
			if r.Limit <= 0 {
				return invalid("worker %s runner %d: limit must be positive, got %d", name, j+1, r.Limit)
			}
		}
	}
	for _, s := range c.Spread {
		if s.Limit <= 0 || len(s.Candidates) == 0 {
			return invalid("spread runner %s: limit %d and %d candidates must be positive", s.Name, s.Limit, len(s.Candidates))
		}
		for _, w := range s.Candidates {
			if w < 0 || w >= len(c.Workers) {
				return invalid("spread runner %s: candidate %d is not a worker", s.Name, w)
			}
		}
	}
	if c.Service.Job < 0 || c.Service.Task < 0 {
		return invalid("service time must not be negative, got job %v task %v", c.Service.Job, c.Service.Task)
	}
	if (c.Service.Job > 0) != (c.Service.Task > 0) {
		return invalid("service time needs both stages or neither, got job %v task %v", c.Service.Job, c.Service.Task)
	}
	return nil
}
