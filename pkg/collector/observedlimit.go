package collector

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// observeLimits takes a runner's N8N_RUNNERS_MAX_CONCURRENCY from the
// probe in front of it where neither the environment nor a declaration
// gives it: the probe infers the limit from the offers the runner keeps
// open plus the tasks it runs. A route two runners dial sums them, so it
// says nothing of either. Run it after discovery and the probes' reading;
// it pairs again when it filled a limit in.
func (c *Collector) observeLimits(r *Report) {
	routes := c.routes()
	dialled := map[int]int{}    // route index → runners that dial it
	unknown := map[string]int{} // runner ID → its route, limit unknown
	for _, nodes := range r.Topology.Hosts() {
		for _, w := range nodes {
			for _, a := range w.Runners {
				i := routeIndex(a, routes)
				if i < 0 {
					continue
				}
				dialled[i]++
				if !a.Runner.Settings.RunnerLimit.Known() {
					unknown[a.Runner.ID] = i
				}
			}
		}
	}
	limits := map[string]int{}
	for id, i := range unknown {
		if n := routes[i].stats.Stats().InferredLimit; n > 0 && dialled[i] == 1 {
			limits[id] = n
		}
	}
	if len(limits) == 0 {
		return
	}
	for i := range r.Processes {
		if n, ok := limits[r.Processes[i].ID]; ok {
			r.Processes[i].Settings.SetRunnerLimit(observedLimit(n))
		}
	}
	r.Topology = c.pair(r.Processes)
}

// observedLimit is a runner limit a probe saw.
func observedLimit(n int) topology.Setting[int] {
	return topology.Setting[int]{Value: n, Var: "N8N_RUNNERS_MAX_CONCURRENCY", From: topology.SourceObserved}
}
