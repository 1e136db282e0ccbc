package collector

import (
	"context"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// fixedPlatform is a platform whose discovery returns fixed processes.
type fixedPlatform []topology.Process

func (l fixedPlatform) Discover(context.Context) ([]topology.Process, error) { return l, nil }

// One background discovery points the CPU sampler at the processes, with
// the hosts of internal runners, before any scrape.
func TestFollowWorkersPointsTheCPUSampler(t *testing.T) {
	w := fixtureProcess(t, "inspect-internal-worker.json")
	c := New(Config{Platform: fixedPlatform{w}, CPU: &CPUConfig{}})
	c.tellSampler(context.Background())
	c.cpu.mu.Lock()
	procs, internal := c.cpu.procs, c.cpu.internal
	c.cpu.mu.Unlock()
	if len(procs) != 1 || procs[0].ID != w.ID || !internal[w.ID] {
		t.Fatalf("after one discovery the sampler reads %v (internal hosts %v), want %s with its internal runner", procs, internal, w.Name)
	}
}
