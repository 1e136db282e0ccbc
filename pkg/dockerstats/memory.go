package dockerstats

import (
	"context"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// CgroupMemory reads containers' memory from the cgroup files.
type CgroupMemory struct{ cgroup.Reader }

// ReadMemory reads each container's memory; errs[i] is ps[i]'s failure.
func (m CgroupMemory) ReadMemory(_ context.Context, ps []topology.Process) ([]topology.Memory, []error) {
	mem := make([]topology.Memory, len(ps))
	errs := make([]error, len(ps))
	for i, p := range ps {
		mem[i], errs[i] = m.Memory(p.CgroupID(), p.CgroupParent)
	}
	return mem, errs
}

// CgroupCPU reads containers' CPU time and quota from the cgroup files.
type CgroupCPU struct{ cgroup.Reader }

// CPU reads one container's CPU.
func (c CgroupCPU) CPU(p topology.Process) (topology.CPU, error) {
	return c.Reader.CPU(p.CgroupID(), p.CgroupParent)
}
