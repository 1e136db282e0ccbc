package main

import (
	"fmt"
	"net/http"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe"
)

// probeLanding is "/" of a probe-only sidecar: one line per probe.
func probeLanding(probes []*brokerprobe.Probe) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "n8n-ceiling exporter, probe-only (EXPORTER_DISCOVERY=false); metrics on /metrics")
		for _, p := range probes {
			s := p.Stats()
			fmt.Fprintf(w, "probe %s: %d runner connections, %d running, limit seen %d, %d tasks done, recent task mean %.2f s over %d tasks\n",
				s.Name, s.RunnerConnections, s.Running, s.InferredLimit, s.TasksDone, s.RecentTaskMean.Seconds(), s.RecentTaskCount)
		}
	})
}
