package collector

import (
	"fmt"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// drainShare is the part of a worker's shutdown window in which n8n 2.41
// drains its running executions and its broker their tasks (0.8; the
// process exits at the whole window). n8n 2.23.2 waits the whole window.
const drainShare = 0.8

// shutdownLines warn, per worker and per runner, when the executions or
// tasks it holds take longer than a stop lets them finish: a deploy or a
// scale-in then cuts the ones running. Nothing is said while they fit, or
// before a service time is measured.
func shutdownLines(r *Report) []string {
	if r.Verdict == nil {
		return nil
	}
	s := r.Verdict.Service
	var out []string
	for _, w := range r.Topology.Workers {
		if l := workerShutdownLine(w.Worker, s.Job); l != "" {
			out = append(out, l)
		}
		for _, a := range w.Runners {
			if l := runnerShutdownLine(a.Runner, s.Task); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

func workerShutdownLine(p topology.Process, job time.Duration) string {
	t := p.Settings.ShutdownTimeout
	if !t.Known() || job <= 0 {
		return ""
	}
	window := time.Duration(t.Value) * time.Second
	drain := time.Duration(float64(window) * drainShare)
	if job < drain {
		return ""
	}
	return fmt.Sprintf("%s: an execution takes %s, and a stopping %s lets its running ones finish for %s "+
		"(N8N_GRACEFUL_SHUTDOWN_TIMEOUT %d s; n8n 2.41 drains for %.1f of it): a deploy or scale-in cuts executions still running",
		hostName(p), seconds(job), p.Role, seconds(drain), t.Value, drainShare)
}

func runnerShutdownLine(p topology.Process, task time.Duration) string {
	t := p.Settings.ShutdownTimeout
	if !t.Known() || task <= 0 || task < time.Duration(t.Value)*time.Second {
		return ""
	}
	return fmt.Sprintf("runner %s: a task takes %s, longer than a stopping runner lets its tasks finish (N8N_RUNNERS_GRACEFUL_SHUTDOWN_TIMEOUT %d s, n8n 2.41): "+
		"a deploy or scale-in cuts tasks still running", p.InstanceName(), seconds(task), t.Value)
}
