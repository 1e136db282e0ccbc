package dockerstats

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/docker/docker/api/types/container"
)

// StatsMemory reads memory through the Engine's one-shot stats call: the
// fallback when the cgroup files are not visible. On dockerd 20.10 each
// call waits for the daemon's 1 s collection tick, so calls run
// concurrently (up to the client's bound) and a scrape costs about one tick
// rather than one tick per container.
func (c *Client) StatsMemory(ctx context.Context, cs []Container) ([]Memory, []error) {
	mem := make([]Memory, len(cs))
	errs := make([]error, len(cs))
	forEachBounded(len(cs), c.bound, func(i int) {
		mem[i], errs[i] = c.statsOne(ctx, cs[i])
	})
	return mem, errs
}

func (c *Client) statsOne(ctx context.Context, ct Container) (Memory, error) {
	r, err := c.api.ContainerStatsOneShot(ctx, ct.ID)
	if err != nil {
		return Memory{}, fmt.Errorf("stats %s: %w", ct.Name, err)
	}
	defer r.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
		return Memory{}, fmt.Errorf("stats %s: %w", ct.Name, err)
	}
	// The API reports an unlimited container's limit as the host's RAM;
	// the inspect value keeps 0 = unlimited.
	m := fromStatMap(s.MemoryStats.Stats, s.MemoryStats.Usage, uint64(max(0, ct.MemoryLimit)))
	return m, nil
}
