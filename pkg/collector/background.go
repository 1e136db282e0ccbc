package collector

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// backingKey keys a backing service's CPU seconds in the demand readings:
// not a resource, a part of the host's demand that is n8n's.
func backingKey(service string) string { return "backing:" + service }

// readBacking puts each backing service's CPU seconds into cpu.
func readBacking(read func() (map[string]float64, error), cpu map[string]float64) error {
	b, err := read()
	if err != nil {
		return err
	}
	for service, seconds := range b {
		cpu[backingKey(service)] = seconds
	}
	return nil
}

// hostShare splits the host's busy CPU over the demand window: the part
// that is n8n's (its containers, and the PostgreSQL and Redis processes on
// the host), per execution, and the rest, in cores busy on average.
type hostShare struct {
	Demand     float64            // n8n's seconds per execution
	Background float64            // cores busy with other work
	Backing    map[string]float64 // each backing service's seconds per execution
	Unknown    string             // why the split is unknown ("" when known)
}

// hostSplit is the host's share for the processes procs. It is unknown
// while the host's demand is, or any running n8n container's.
func hostSplit(v cpuView, procs []topology.Process) hostShare {
	e := v.estimate
	host, ok := e.Demand[capacity.HostCPU]
	if !v.has || !ok {
		return hostShare{Unknown: "the host's CPU demand is not measured yet"}
	}
	s, read := hostShare{Backing: map[string]float64{}}, 0
	for _, p := range procs {
		if !sampled(p) {
			continue
		}
		d, ok := e.Demand[capacity.ContainerCPU(p.Name)]
		if !ok {
			return hostShare{Unknown: "the CPU of " + p.Name + " is not measured through the window"}
		}
		s.Demand += d
		read++
	}
	if read == 0 {
		return hostShare{Unknown: "no running n8n container's CPU is read"}
	}
	for _, service := range backingOrder {
		if d, ok := e.Demand[backingKey(service)]; ok {
			s.Backing[service] = d
			s.Demand += d
		}
	}
	s.Background = max(0, host-s.Demand) * e.Rate()
	return s
}

// backingOrder is the order the backing services are named in.
var backingOrder = []string{proccpu.Postgres, proccpu.Redis}

// minHostCores keeps the host's resource positive when other work takes
// nearly every core: n8n's ceiling there is near zero, not undefined.
const minHostCores = 0.05

// hostResource is the host's cores as a resource. With the split s known,
// its servers are the cores other work leaves and its demand n8n's share;
// without, the cores and the host's whole busy time per execution.
func hostResource(v cpuView, s hostShare) capacity.Resource {
	r := cpuResource(v, capacity.HostCPU, float64(v.cores))
	if r.Known() && s.Unknown == "" {
		r.Servers, r.Demand = coresLeft(v.cores, s.Background), s.Demand
	}
	return r
}

// coresLeft is the host's cores less the background, at least
// minHostCores.
func coresLeft(cores int, background float64) float64 {
	return max(minHostCores, float64(cores)-background)
}
