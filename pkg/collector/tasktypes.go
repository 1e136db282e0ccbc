package collector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// TypeVerdict is the slot model for one task type: the verdict were
// every Code task of that type. The broker gives a task only to an offer
// of its type, so each type's runner slots are a pool of their own.
type TypeVerdict struct {
	Type    topology.TaskType
	Verdict capacity.Verdict
}

// taskTypes are the task types the runners of t serve, JavaScript first.
func taskTypes(t topology.Topology) []topology.TaskType {
	out := []topology.TaskType{topology.TaskJavaScript}
	add := func(p topology.Process) {
		for _, pool := range p.Settings.TaskPools {
			if !slices.Contains(out, pool.Type) {
				out = append(out, pool.Type)
			}
		}
	}
	for _, w := range t.Workers {
		for _, a := range w.Runners {
			add(a.Runner)
		}
	}
	for _, s := range t.Spread {
		add(s.Runner)
	}
	return out
}

// limitOf is p's slots of task type typ: its RunnerLimit for JavaScript
// (an internal runner's, or one a probe saw), else its pool's; 0 when it
// runs no task of that type.
func limitOf(p topology.Process, typ topology.TaskType) topology.Setting[int] {
	if typ == topology.TaskJavaScript {
		return p.Settings.RunnerLimit
	}
	for _, pool := range p.Settings.TaskPools {
		if pool.Type == typ {
			return pool.Limit
		}
	}
	return topology.Of(0)
}

// typesLine names each task type's slots and slot ceiling when the
// runners serve more than JavaScript, and says the cluster's figures
// assume JavaScript alone.
func typesLine(r *Report) string {
	if len(r.Types) < 2 {
		return ""
	}
	var parts []string
	for _, tv := range r.Types {
		p := fmt.Sprintf("%s %d runner slots, effective %d", tv.Type, tv.Verdict.RunnerCapacity, tv.Verdict.Effective)
		if tv.Verdict.HasCeiling() {
			p += fmt.Sprintf(", slot ceiling %.2f/s", tv.Verdict.Ceiling)
		}
		parts = append(parts, p)
	}
	return "task types (a task takes only a slot of its type): " + strings.Join(parts, "; ") +
		". The cluster's figures assume every Code task is JavaScript; the other types' ceilings hold were every task of that type, at the same task time"
}
