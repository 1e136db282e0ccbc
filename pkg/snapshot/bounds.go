package snapshot

import (
	"fmt"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

// Bounds rebuilds the exporter's bound analysis from its resource series:
// slot resources (named slots:…) and CPU resources (cpu:…), each with its
// servers and, when published, its demand and a thread's cores alone. It fails when the scrape has no
// resource series or names a kind it does not know.
func (s *Snapshot) Bounds() (capacity.Bounds, error) {
	var slots, cpu []capacity.Resource
	for _, r := range s.Resources {
		res := capacity.Resource{Name: r.Name, Servers: r.Servers.Value, Demand: r.Demand.Value, Alone: r.Alone.Value}
		if !r.Demand.OK {
			res.Unknown = "not published"
		}
		switch {
		case strings.HasPrefix(r.Name, "slots:"):
			res.Kind = capacity.KindSlots
			slots = append(slots, res)
		case strings.HasPrefix(r.Name, "cpu:"):
			res.Kind = capacity.KindCPU
			cpu = append(cpu, res)
		default:
			return capacity.Bounds{}, fmt.Errorf("exporter metrics: resource %q is neither a slots: nor a cpu: resource", r.Name)
		}
	}
	if len(slots)+len(cpu) == 0 {
		return capacity.Bounds{}, fmt.Errorf("exporter metrics: no resource series (an exporter older than the bound analysis)")
	}
	return capacity.Combine(slots, cpu)
}
