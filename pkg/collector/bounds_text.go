package collector

import (
	"fmt"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// boundsLine says which resource sets the ceiling and what the others
// allow, e.g. "ceiling 58.0/s, set by the host's CPU: 2 cores, 34 ms per
// execution (main 12 ms, worker 9 ms, runner 3 ms, other 10 ms); slots
// would allow 171.3/s". "" without a bound analysis.
func boundsLine(r *Report) string {
	b := r.Bounds
	if b == nil || !b.HasCeiling() || r.Ceiling() == 0 {
		return ""
	}
	top := b.Resources[indexOf(b, b.Bottleneck())]
	line := fmt.Sprintf("ceiling %.1f/s, set by %s", b.Ceiling, describeResource(top, r))
	if top.Kind == capacity.KindCPU {
		return line + fmt.Sprintf("; slots would allow %.1f/s", b.SlotCeiling)
	}
	if cpu, name := lowestCPU(b); cpu > 0 {
		return line + fmt.Sprintf("; CPU would allow %.1f/s (%s)", cpu, name)
	}
	return line + "; " + cpuUnknown(r)
}

func indexOf(b *capacity.Bounds, name string) int {
	for i, res := range b.Resources {
		if res.Name == name {
			return i
		}
	}
	return 0
}

// describeResource names a resource in words with its servers and demand.
func describeResource(res capacity.ResourceBound, r *Report) string {
	switch {
	case res.Name == capacity.HostCPU:
		return fmt.Sprintf("the host's CPU: %s, %s per execution%s", hostCores(res, r), ms(res.Demand), cpuSplit(r))
	case res.Kind == capacity.KindCPU:
		return fmt.Sprintf("the CPU of %s: %g core, %s per execution", strings.TrimPrefix(res.Name, "cpu:"), res.Servers, ms(res.Demand))
	case strings.HasPrefix(res.Name, "slots:runner:"):
		return fmt.Sprintf("the runner slots of %s: %g slots", slotHost(r, strings.TrimPrefix(res.Name, "slots:runner:")), res.Servers)
	default:
		return fmt.Sprintf("the worker slots of %s: %g slots", strings.TrimPrefix(res.Name, "slots:worker:"), res.Servers)
	}
}

// slotHost is the main or worker whose slots a resource names, e.g.
// "worker n8n-worker-1" or "main n8n-main (regular mode)".
func slotHost(r *Report, name string) string {
	for _, w := range r.Topology.Workers {
		if w.Worker.InstanceName() == name {
			return hostName(w.Worker)
		}
	}
	return "worker " + name
}

// hostCores is the host's cores as its resource counts them: "2 cores",
// or "1.58 of its 2 cores (other work takes 0.42)" where other work is
// measured apart.
func hostCores(res capacity.ResourceBound, r *Report) string {
	if r.CPU == nil || r.CPU.Host.Unknown != "" {
		return fmt.Sprintf("%g cores", res.Servers)
	}
	return fmt.Sprintf("%.2f of its %d cores (other work takes %.2f)", res.Servers, r.CPU.Cores, r.CPU.Host.Background)
}

// cpuSplit is the host's demand split by role: " (main 12 ms, worker 9
// ms, runner 3 ms, postgres 5 ms, redis 1 ms)" where the host's share is
// measured apart, else with "other": the host's demand outside the n8n
// processes (PostgreSQL, Redis, the kernel, everything else).
func cpuSplit(r *Report) string {
	if r.CPU == nil || len(r.CPU.RoleDemand) == 0 {
		return ""
	}
	host, inN8n := 0.0, 0.0
	if res, ok := r.Bounds.Resource(capacity.HostCPU); ok && res.Known() {
		host = res.Demand
	}
	var parts []string
	for _, role := range []topology.Role{topology.RoleMain, topology.RoleWebhook, topology.RoleWorker, topology.RoleRunner, topology.RoleLauncher} {
		if d, ok := r.CPU.RoleDemand[role]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", role, ms(d)))
			inN8n += d
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if r.CPU.Host.Unknown != "" {
		return " (" + strings.Join(append(parts, "other "+ms(max(0, host-inN8n))), ", ") + ")"
	}
	for _, service := range backingOrder {
		if d, ok := r.CPU.Host.Backing[service]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", service, ms(d)))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// minStolenShown is the smallest stolen share that stealLine names.
const minStolenShown = 0.01

// stealLine says how much of the host's CPU the hypervisor took and what
// that leaves each n8n process; "" below minStolenShown.
func stealLine(r *Report) string {
	if r.CPU == nil || r.CPU.Stolen < minStolenShown {
		return ""
	}
	return fmt.Sprintf("the hypervisor took %.0f %% of the host's busy CPU time over the demand window (steal), so each n8n process counts %.2f of a core, not %g",
		100*r.CPU.Stolen, r.processCores(), r.CPU.ProcessCores)
}

// lowestCPU is the lowest ceiling among the CPU resources with a demand.
func lowestCPU(b *capacity.Bounds) (float64, string) {
	low, name := 0.0, ""
	for _, res := range b.Resources {
		if res.Kind == capacity.KindCPU && res.Known() && res.Ceiling > 0 && (low == 0 || res.Ceiling < low) {
			low, name = res.Ceiling, res.Name
		}
	}
	return low, name
}

// cpuUnknown says why no CPU bound is in the ceiling yet.
func cpuUnknown(r *Report) string {
	switch {
	case r.CPU == nil:
		return "CPU is not measured (the CPU sampler is off), so the ceiling is the slot bound"
	case r.CPU.Waiting != "" && r.CPU.At.IsZero():
		return "CPU demand not measured yet (" + r.CPU.Waiting + "), so the ceiling is the slot bound"
	}
	return "no CPU demand known, so the ceiling is the slot bound"
}

func ms(s float64) string {
	if s < 0.0995 {
		return fmt.Sprintf("%.1f ms", s*1000)
	}
	return fmt.Sprintf("%.0f ms", s*1000)
}
