package collector

import (
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// CPUReport is what the CPU demand sampler held when a scrape read it.
type CPUReport struct {
	Window     time.Duration // span of the estimate's window
	Executions float64       // executions completed in that window
	Rate       float64       // executions per second in that window
	At         time.Time     // the window's last reading; zero before the first estimate
	Waiting    string        // why the current window gives no estimate ("" when it does)
	Cores      int           // online CPUs; 0 when /proc/stat was not read
	// ProcessCores is what one n8n process can use, in cores, on a host
	// whose hypervisor steals nothing.
	ProcessCores float64
	// Stolen is the share of the host's busy time that the hypervisor
	// gave to other guests over the window (stolenShare); each process
	// resource has ProcessCores × (1 − Stolen) cores.
	Stolen    float64
	Completed float64 // executions completed so far, the counter
	HasCount  bool    // Completed was read
	// CountedFrom is the count's source (CountRedis, CountN8n or
	// CountProbe); "" when not counted.
	CountedFrom string
	// RoleDemand is the CPU per execution of each role's processes, every
	// thread counted (a container read apart counts its runner process
	// as a runner), for the split of the host's demand; empty without an
	// estimate.
	RoleDemand map[topology.Role]float64
	// Threads says each process resource is its main thread
	// (CPUConfig.Threads).
	Threads bool
	// Ran is each process resource's ranShare, where its thread's run
	// delay was read (Threads only): its cores are ProcessCores × (1 −
	// Stolen) × this share.
	Ran map[string]float64
	// Split maps the container CPU name of each container read to "" if
	// its processes were read apart, else why not.
	Split map[string]string
	// Host splits the host's busy CPU into n8n's share and other work.
	Host hostShare
	// Backing is "" when the backing services' processes were read, else
	// why not.
	Backing string
}

// bound runs the bound analysis: the verdict's slot resources and the CPU
// resources the sampler has measured. The sampler's own reads are this
// scrape's executions, cpu, procstat and backing sources.
func (c *Collector) bound(r *Report) {
	var cpu []capacity.Resource
	if c.cpu != nil {
		v := c.cpu.latest()
		for _, name := range []string{"executions", "cpu", "procstat", "backing"} {
			if s, ok := v.source[name]; ok {
				r.addSource(s)
			}
		}
		internal := internalHosts(r.Topology)
		r.CPU = cpuReport(v, r.Processes, internal, c.cpu.cfg.ProcessCores)
		r.CPU.Threads = c.cpu.cfg.Threads
		cpu = cpuResources(v, r.Processes, internal, r.processCores(), r.CPU.Host)
	}
	if r.Verdict == nil {
		return
	}
	b, err := capacity.Combine(capacity.SlotResources(*r.Verdict), cpu)
	if err != nil {
		r.BoundsErr = err.Error()
		return
	}
	r.Bounds = &b
}

func cpuReport(v cpuView, procs []topology.Process, internal map[string]bool, processCores float64) *CPUReport {
	rep := &CPUReport{Waiting: v.waiting, Cores: v.cores, ProcessCores: processCores, Stolen: stolenShare(v), Completed: v.completed, HasCount: v.counted, CountedFrom: v.countedFrom,
		RoleDemand: map[topology.Role]float64{}, Ran: map[string]float64{}, Split: v.split, Host: hostSplit(v, procs), Backing: v.backing}
	if !v.has {
		return rep
	}
	e := v.estimate
	rep.Window, rep.Executions, rep.Rate, rep.At = e.Span, e.Executions, e.Rate(), e.At
	add := func(key string, role topology.Role) {
		if d, ok := e.Demand[key]; ok {
			rep.RoleDemand[role] += d
		}
	}
	for _, p := range procs {
		if p.Role == topology.RoleProbe {
			continue
		}
		if !readApart(v.split, p) {
			add(capacity.ContainerCPU(p.Name), p.Role)
			continue
		}
		for _, proc := range nodeProcesses(p, internal) {
			role := p.Role
			if proc == capacity.ProcessRunner {
				role = topology.RoleRunner
			}
			name := capacity.ProcessCPU(p.Name, proc)
			add(processTotal(name), role)
			if ran, read := ranShare(v, name); read {
				rep.Ran[name] = ran
			}
		}
	}
	return rep
}

// processCores is what one n8n process can use: the CPU sampler's
// setting less the stolen share, or capacity's default without a sampler.
func (r *Report) processCores() float64 {
	if r.CPU != nil && r.CPU.ProcessCores > 0 {
		return r.CPU.ProcessCores * (1 - r.CPU.Stolen)
	}
	return capacity.DefaultProcessCores
}

// Ceiling is the cluster's ceiling: the minimum over every resource once
// the slots' service times are known, else 0 (unknown). A CPU bound alone
// is not published as the ceiling: the slots may bind lower.
func (r *Report) Ceiling() float64 {
	if r.Verdict == nil || !r.Verdict.HasCeiling() {
		return 0
	}
	if r.Bounds != nil && r.Bounds.HasCeiling() {
		return r.Bounds.Ceiling
	}
	return r.Verdict.Ceiling
}
