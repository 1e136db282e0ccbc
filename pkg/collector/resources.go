package collector

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// hostSteal keys the host's steal seconds in the demand readings: not a
// resource, the numerator of stolenShare.
const hostSteal = "steal:host"

// maxStolen keeps a process's cores positive however much is stolen.
const maxStolen = 0.99

// stolenShare is the part of the host's busy time that the hypervisor gave
// to other guests over the demand window (steal ÷ busy, both per
// execution). A process's CPU time leaves steal out, so a process that
// wants a whole CPU gets 1 − this share of one. The host's own resource
// needs no such correction: its busy time counts steal, so its demand
// grows by the same share. 0 while either demand is unknown.
func stolenShare(v cpuView) float64 {
	busy, ok := v.estimate.Demand[capacity.HostCPU]
	steal, ok2 := v.estimate.Demand[hostSteal]
	if !v.has || !ok || !ok2 || busy <= 0 {
		return 0
	}
	return min(max(steal/busy, 0), maxStolen)
}

// processWait keys a process's main-thread run delay (time runnable but
// waiting for a core) in the demand readings, with CPUConfig.Threads: not
// a resource, the other term of ranShare.
func processWait(process string) string { return process + " wait" }

// minRan keeps a process's cores positive however long its thread waits.
const minRan = 0.01

// ranShare is the share of the time a process's main thread had work that
// it ran over the demand window: its CPU ÷ (its CPU + its run delay), both
// per execution. Node runs JavaScript on that one thread, so on a busy
// host it gets this share of the core it would use alone. 1 while either
// is unknown (and without CPUConfig.Threads, which reads no run delay).
func ranShare(v cpuView, process string) (share float64, read bool) {
	run, ok := v.estimate.Demand[process]
	wait, ok2 := v.estimate.Demand[processWait(process)]
	if !v.has || !ok || !ok2 || run+wait <= 0 {
		return 1, false
	}
	return max(run/(run+wait), minRan), true
}

// threadBusy is the cores a process's main thread ran over the demand
// window: its CPU per execution × the window's executions per second. Its
// servers are never fewer: processCores × ranShare assumes the thread,
// saturated, has work processCores of the time, but a thread that waits
// for a core meanwhile finds its socket's replies waiting and has work
// nearly all the time; its share of the core then counts whole, and a
// ceiling below the throughput the thread carried would not be one.
func threadBusy(v cpuView, process string) float64 {
	if !v.has {
		return 0
	}
	return v.estimate.Demand[process] * v.estimate.Rate()
}

// internalHostCores is the CPU of a container whose n8n process launches
// an internal runner: two Node processes, each up to processCores.
// Without a split per process, their sum is one resource.
func internalHostCores(processCores float64) float64 { return 2 * processCores }

// cpuResources turns the sampler's view into CPU resources: the host's
// cores and, per running n8n container read apart, its Node processes,
// each processCores (their main threads with CPUConfig.Threads, each
// processCores × its ranShare) or its quota if lower, plus the container
// itself when it has a quota. A container not read apart is one
// resource: processCores (internalHostCores when it launches an internal
// runner) or its quota if lower. A resource without a demand in the
// estimate is unknown, with the reason. host is the host's split
// (CPUReport.Host).
func cpuResources(v cpuView, procs []topology.Process, internal map[string]bool, processCores float64, host hostShare) []capacity.Resource {
	var out []capacity.Resource
	if v.cores > 0 {
		out = append(out, hostResource(v, host))
	}
	for _, p := range procs {
		name := capacity.ContainerCPU(p.Name)
		q, read := v.quota[name]
		switch {
		case !read || p.Role == topology.RoleProbe:
		case readApart(v.split, p):
			for _, proc := range nodeProcesses(p, internal) {
				name := capacity.ProcessCPU(p.Name, proc)
				ran, read := ranShare(v, name)
				r := cpuResource(v, name, capped(processCores*ran, q))
				if read {
					r.Alone = capped(processCores, q)
					r.Servers = max(r.Servers, min(threadBusy(v, name), r.Alone))
				}
				out = append(out, r)
			}
			if q > 0 {
				out = append(out, cpuResource(v, name, q))
			}
		case internal[p.ID]:
			out = append(out, cpuResource(v, name, capped(internalHostCores(processCores), q)))
		default:
			out = append(out, cpuResource(v, name, capped(processCores, q)))
		}
	}
	return out
}

// nodeProcesses are the Node processes container p holds, by
// capacity.ProcessCPU's names: a runner's or launcher's container its
// runner, a host of an internal runner n8n and the runner, any other n8n.
func nodeProcesses(p topology.Process, internal map[string]bool) []string {
	switch {
	case p.Role == topology.RoleRunner || p.Role == topology.RoleLauncher:
		return []string{capacity.ProcessRunner}
	case internal[p.ID]:
		return []string{capacity.ProcessN8n, capacity.ProcessRunner}
	}
	return []string{capacity.ProcessN8n}
}

// readApart reports whether split (cpuView.split, CPUReport.Split) says
// the last reading read p's processes apart.
func readApart(split map[string]string, p topology.Process) bool {
	why, ok := split[capacity.ContainerCPU(p.Name)]
	return ok && why == ""
}

// capped is m, or the quota q if one is set and lower.
func capped(m, q float64) float64 {
	if q > 0 {
		return min(m, q)
	}
	return m
}

// internalHosts are the IDs of the processes that launch a runner of
// their own.
func internalHosts(t topology.Topology) map[string]bool {
	out := map[string]bool{}
	for _, nodes := range t.Hosts() {
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
