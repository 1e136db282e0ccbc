package collector

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// threadLines say, with CPUConfig.Threads, how each container's CPU is a
// resource: its Node processes' main threads where they were read apart
// from /proc, else the container's total, and why (the hosts of internal
// runners are splitLines'). Without, wholeProcessLine.
func threadLines(r *Report) []string {
	if r.CPU == nil {
		return nil
	}
	if !r.CPU.Threads {
		return wholeProcessLine(r)
	}
	internal := internalHosts(r.Topology)
	apart, whole := false, map[string][]string{}
	for _, p := range r.Processes {
		why, ok := r.CPU.Split[capacity.ContainerCPU(p.Name)]
		switch {
		case !ok || p.Role == topology.RoleProbe:
		case why == "":
			apart = true
		case !internal[p.ID]:
			whole[why] = append(whole[why], p.Name)
		}
	}
	var out []string
	if apart {
		out = append(out, fmt.Sprintf("each n8n and runner process is a CPU resource of its main thread, where Node runs JavaScript, read from /proc (up to %g of a core, %s); its other threads (V8's helpers, and the worker threads n8n 2.41 runs part of each execution on) count in the host's CPU",
			r.processCores(), capacity.ProcessCPU("<container>", capacity.ProcessN8n)))
	}
	out = append(out, waitLines(r)...)
	for _, why := range slices.Sorted(maps.Keys(whole)) {
		out = append(out, fmt.Sprintf("%s: not read apart (%s), so each container's total is one resource of %g of a core: where n8n works on more threads than one (n8n 2.41), its ceiling reads low",
			strings.Join(whole[why], ", "), why, r.processCores()))
	}
	return out
}

// wholeProcessLine says, when an n8n process's CPU binds and the process
// resources count every thread, that n8n 2.41's worker threads make that
// ceiling low, and how to count the main thread alone.
func wholeProcessLine(r *Report) []string {
	if r.Bounds == nil || !r.Bounds.HasCeiling() {
		return nil
	}
	top := r.Bounds.Bottleneck()
	if !strings.HasPrefix(top, "cpu:") || top == capacity.HostCPU {
		return nil
	}
	return []string{fmt.Sprintf("%s counts every thread of its process against %g of a core; n8n 2.41 runs part of each execution on worker threads beside the one JavaScript thread, so there this ceiling reads low: EXPORTER_PROCESS_CPU=thread counts the main thread alone (needs the host's PID namespace)",
		top, r.processCores())}
}

// minWaitShown is the smallest share of its runnable time a thread waited
// for a core that waitLines names.
const minWaitShown = 0.02

// waitLines say, for each process whose main thread waited for a core
// over the demand window, what share of a core that leaves it: the
// servers of its resource (its cgroup quota where that is lower).
func waitLines(r *Report) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(r.CPU.Ran)) {
		ran := r.CPU.Ran[name]
		if 1-ran < minWaitShown {
			continue
		}
		m := r.processCores() * ran
		if r.Bounds != nil {
			if res, ok := r.Bounds.Resource(name); ok {
				m = res.Servers
			}
		}
		out = append(out, fmt.Sprintf("%s: its thread waited for a core %.0f %% of the time it had work over the demand window (schedstat's run delay: other threads held the host's cores), so it counts %.2f of a core, not %g",
			name, 100*(1-ran), m, r.processCores()))
	}
	return out
}
