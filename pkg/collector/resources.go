package collector

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// InternalHostCores is the CPU of a container whose n8n process launches
// an internal runner: two Node processes, each up to
// capacity.ProcessCores. Without a split per process, their sum is one
// resource.
const InternalHostCores = 2 * capacity.ProcessCores

// cpuResources turns the sampler's view into CPU resources: the host's
// cores and, per running n8n container read, capacity.ProcessCores
// (InternalHostCores for the IDs in internal) or its quota if lower. A
// resource without a demand in the estimate is unknown, with the reason.
func cpuResources(v cpuView, procs []topology.Process, internal map[string]bool) []capacity.Resource {
	var out []capacity.Resource
	if v.cores > 0 {
		out = append(out, cpuResource(v, capacity.HostCPU, float64(v.cores)))
	}
	for _, p := range procs {
		name := capacity.ContainerCPU(p.Name)
		q, read := v.quota[name]
		if !read || p.Role == topology.RoleProbe {
			continue
		}
		m := capacity.ProcessCores
		if internal[p.ID] {
			m = InternalHostCores
		}
		if q > 0 {
			m = min(m, q)
		}
		out = append(out, cpuResource(v, name, m))
	}
	return out
}

// internalHosts are the IDs of the processes that launch a runner of
// their own.
func internalHosts(t topology.Topology) map[string]bool {
	out := map[string]bool{}
	for _, nodes := range [][]topology.WorkerNode{t.Workers, t.Manual} {
		for _, w := range nodes {
			if w.Worker.Settings.LaunchesRunner() {
				out[w.Worker.ID] = true
			}
		}
	}
	return out
}

func cpuResource(v cpuView, name string, servers float64) capacity.Resource {
	r := capacity.Resource{Name: name, Kind: capacity.KindCPU, Servers: servers}
	switch d, ok := v.estimate.Demand[name]; {
	case !v.has:
		r.Unknown = "no demand yet: " + v.waiting
	case ok:
		r.Demand = d
	case v.estimate.Unknown[name] != "":
		r.Unknown = v.estimate.Unknown[name]
	default:
		r.Unknown = "not read through the last demand window"
	}
	return r
}
