package dockerstats

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/docker/docker/api/types/container"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/cgroup"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// ReadMemory reads memory through the Engine's one-shot stats call: the
// fallback when the cgroup files are not visible. On dockerd 20.10 each
// call waits for the daemon's 1 s collection tick, so calls run
// concurrently (up to the client's bound) and a scrape costs about one tick
// rather than one tick per container.
func (c *Client) ReadMemory(ctx context.Context, ps []topology.Process) ([]topology.Memory, []error) {
	mem := make([]topology.Memory, len(ps))
	errs := make([]error, len(ps))
	forEachBounded(len(ps), c.bound, func(i int) {
		mem[i], errs[i] = c.statsOne(ctx, ps[i])
	})
	return mem, errs
}

func (c *Client) statsOne(ctx context.Context, p topology.Process) (topology.Memory, error) {
	r, err := c.api.ContainerStatsOneShot(ctx, p.ID)
	if err != nil {
		return topology.Memory{}, fmt.Errorf("stats %s: %w", p.Name, err)
	}
	defer r.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
		return topology.Memory{}, fmt.Errorf("stats %s: %w", p.Name, err)
	}
	// The API reports an unlimited container's limit as the host's RAM;
	// the inspect value keeps 0 = unlimited.
	return cgroup.FromStat(s.MemoryStats.Stats, s.MemoryStats.Usage, uint64(max(0, p.State.MemoryLimit))), nil
}
