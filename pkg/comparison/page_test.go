package comparison

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
)

// resource is one line of the bound analysis an exporter publishes.
type resource struct {
	name            string
	servers, demand float64
}

// cpuBound is the lab's short-workflow shape: one worker of 15 slots and a
// runner of 10, and the host's two cores binding at 2 / 34 ms = 58.8/s.
var cpuBound = []resource{
	{"slots:worker:w1", 15, 0.035},
	{"slots:runner:w1", 10, 0.010},
	{"cpu:host", 2, 0.034},
	{"cpu:main", 1, 0.012},
}

// exporterPage writes the series the exporter publishes for one worker of
// concurrency 15 whose runner has the given limit, its job and task times,
// and the resources with their ceilings and the binding flag, the cluster
// ceiling being the lowest.
func exporterPage(limit int, job, task float64, res []resource) string {
	bounds := boundsOf(res)
	var b strings.Builder
	fmt.Fprintf(&b, "n8n_worker_concurrency{worker=\"w1\"} 15\nn8n_runner_max_concurrency{runner=\"r1\",worker=\"w1\"} %d\n", limit)
	fmt.Fprintf(&b, "n8n_service_time_seconds{source=\"queue\",stage=\"job\"} %g\nn8n_service_time_seconds{source=\"probe\",stage=\"task\"} %g\n", job, task)
	fmt.Fprintf(&b, "n8n_cluster_effective_concurrency %d\nn8n_cluster_ceiling_executions_per_second %g\n", min(15, limit), bounds.Ceiling)
	for _, r := range bounds.Resources {
		flag := 0
		if r.Binding {
			flag = 1
		}
		fmt.Fprintf(&b, "n8n_resource_servers{resource=%[1]q} %[2]g\nn8n_resource_demand_seconds{resource=%[1]q} %[3]g\n"+
			"n8n_resource_ceiling_executions_per_second{resource=%[1]q} %[4]g\nn8n_cluster_bottleneck{resource=%[1]q} %[5]d\n",
			r.Name, r.Servers, r.Demand, r.Ceiling, flag)
	}
	return b.String()
}

// pageServer serves a page on /metrics that the test may change between
// steps, as a live exporter's demands change with the load.
type pageServer struct {
	*httptest.Server
	mu   sync.Mutex
	page string
}

func newPageServer(t *testing.T, page string) *pageServer {
	t.Helper()
	p := &pageServer{page: page}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprint(w, p.page)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *pageServer) set(page string) {
	p.mu.Lock()
	p.page = page
	p.mu.Unlock()
}

// boundsOf is the bound table of res: a name starting "slots:" is slots,
// any other CPU.
func boundsOf(res []resource) capacity.Bounds {
	var slots, cpu []capacity.Resource
	for _, r := range res {
		cr := capacity.Resource{Name: r.name, Kind: capacity.KindCPU, Servers: r.servers, Demand: r.demand}
		if strings.HasPrefix(r.name, "slots:") {
			cr.Kind = capacity.KindSlots
			slots = append(slots, cr)
		} else {
			cpu = append(cpu, cr)
		}
	}
	bounds, err := capacity.Combine(slots, cpu)
	if err != nil {
		panic(err)
	}
	return bounds
}
