package collector

import (
	"context"
	"testing"
	"time"

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
	procs, internal := cpuTargets(c)
	if len(procs) != 1 || procs[0].ID != w.ID || !internal[w.ID] {
		t.Fatalf("after one discovery the sampler reads %v (internal hosts %v), want %s with its internal runner", procs, internal, w.Name)
	}
}

// Scrapes only read: a burst of them points no sampler at anything, and
// leaves the execution counter's mode as the discovery set it.
func TestScrapesLeaveTheSamplersAlone(t *testing.T) {
	w := fixtureProcess(t, "inspect-internal-worker.json")
	c := New(Config{Platform: fixedPlatform{w}, PlatformName: "docker", CPU: &CPUConfig{}, Timeout: time.Second})
	for range 5 {
		c.Gather(context.Background())
	}
	procs, _ := cpuTargets(c)
	if len(procs) != 0 || c.n8n.target() != "" || c.count.regular.Load() {
		t.Fatalf("after 5 scrapes: CPU sampler on %v, n8n sampler on %q, regular %v; want all unset", procs, c.n8n.target(), c.count.regular.Load())
	}
	c.tellSampler(context.Background())
	if procs, _ := cpuTargets(c); len(procs) != 1 {
		t.Errorf("the discovery did not point the CPU sampler: %v", procs)
	}
}

// cpuTargets are the processes the CPU sampler reads, and the hosts of
// internal runners among them.
func cpuTargets(c *Collector) ([]topology.Process, map[string]bool) {
	c.cpu.mu.Lock()
	defer c.cpu.mu.Unlock()
	return c.cpu.procs, c.cpu.internal
}
