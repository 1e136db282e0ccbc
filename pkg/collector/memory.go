package collector

import (
	"context"
	"errors"
	"fmt"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// readMemory reads each running process's memory from the first memory
// source that can: the cgroup files, and only the ones that fail there
// through the (slow) stats API. A source with nothing left to read is not
// asked or reported.
func (c *Collector) readMemory(ctx context.Context, r *Report) {
	r.Memory = map[string]topology.Memory{}
	var rest []topology.Process
	for _, p := range r.Processes {
		if p.State.Running {
			rest = append(rest, p)
		}
	}
	for _, src := range c.cfg.Memory {
		if len(rest) == 0 {
			return
		}
		ps := rest
		rest = nil
		r.addSource(timed(ctx, src.Name, c.cfg.Timeout, func(ctx context.Context) error {
			mem, errs := src.Reader.ReadMemory(ctx, ps)
			var failed []error
			for i, p := range ps {
				if errs[i] != nil {
					failed = append(failed, errs[i])
					rest = append(rest, p)
					continue
				}
				r.Memory[p.ID] = mem[i]
			}
			return summarize(failed, len(ps))
		}))
	}
}

// summarize keeps one example error and the count.
func summarize(errs []error, of int) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d containers failed, e.g.: %w", len(errs), of, errors.Join(errs[0]))
}
