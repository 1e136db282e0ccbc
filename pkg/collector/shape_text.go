package collector

import (
	"fmt"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// shapeLine names the deployment's shape, e.g. "queue mode, 2 workers,
// external runners (1 through a probe)" or "regular mode, internal runner".
func shapeLine(t topology.Topology) string {
	var queue, regular int
	for _, w := range t.Workers {
		if w.Worker.Role == topology.RoleMain {
			regular++
		} else {
			queue++
		}
	}
	var parts []string
	switch {
	case queue+len(t.Manual) > 0 && regular > 0:
		parts = append(parts, "mixed: queue mode and regular mode", counted(queue, "worker"), counted(regular, "regular-mode main"))
	case queue+len(t.Manual) > 0:
		parts = append(parts, "queue mode", counted(queue, "worker"))
	case regular > 1:
		parts = append(parts, "regular mode", counted(regular, "main"))
	case regular == 1:
		parts = append(parts, "regular mode")
	default:
		return "no n8n main or worker found"
	}
	parts = append(parts, runnerKinds(t.Workers))
	if n := len(t.Pooled); n > 0 {
		parts = append(parts, counted(n, "pool worker")+" (not modelled)")
	}
	if n := len(t.Webhooks); n > 0 {
		parts = append(parts, counted(n, "webhook processor"))
	}
	return strings.Join(parts, ", ")
}

// runnerKinds says which runners serve production executions: "internal
// runners", "external runner (1 through a probe)", "internal and external
// runners", or "no runner".
func runnerKinds(nodes []topology.WorkerNode) string {
	var internal, external, probed int
	for _, w := range nodes {
		for _, a := range w.Runners {
			switch {
			case a.Internal():
				internal++
			case a.Probe != "":
				external++
				probed++
			default:
				external++
			}
		}
	}
	kinds := ""
	switch {
	case internal > 0 && external > 0:
		kinds = "internal and external runners"
	case internal > 0:
		kinds = plural(internal, "internal runner")
	case external > 0:
		kinds = plural(external, "external runner")
	default:
		return "no runner"
	}
	if probed > 0 {
		kinds += fmt.Sprintf(" (%d through a probe)", probed)
	}
	return kinds
}

// counted is "1 worker" or "2 workers".
func counted(n int, noun string) string { return fmt.Sprintf("%d %s", n, plural(n, noun)) }

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
