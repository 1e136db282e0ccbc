package kube_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/kube"
)

// kubeletMemoryTolerance bounds the exporter's working set against the
// kubelet's for one container: cAdvisor serves a reading up to its
// housekeeping interval (10 to 15 s) old, and an idle n8n's working set
// moves by a few MiB in that time.
const kubeletMemoryTolerance = 0.10

// checkContainerCgroups: with the node's cgroups mounted (up.sh sets the
// chart's cgroup.hostPath), the exporter reads each n8n container's
// memory and CPU, as on Docker. Its working set for every n8n container
// is within kubeletMemoryTolerance of the kubelet's own reading
// (/metrics/resource, cAdvisor, through the apiserver's node proxy); after
// a load each n8n and runner container is a CPU resource with a demand
// (one per container: the chart gives the exporter no hostPID to read
// its processes apart); and cpu:host has
// the node's other work counted apart.
func checkContainerCgroups(t *testing.T, c *labCluster, metrics string) {
	t.Helper()
	s := readExporter(t, metrics)
	kubelet := kubeletWorkingSets(t, c)
	if len(s.Containers) == 0 {
		t.Fatal("the exporter shows no n8n container")
	}
	for _, ct := range s.Containers {
		want, ok := kubelet[ct.Name]
		switch {
		case !ok:
			t.Errorf("%s: the kubelet reports no working set for it", ct.Name)
		case !ct.WorkingSet.OK:
			t.Errorf("%s: no n8n_container_memory_working_set_bytes with the node's cgroups mounted", ct.Name)
		default:
			off := (ct.WorkingSet.Value - want) / want
			t.Logf("%s: working set %.1f MiB, the kubelet's %.1f MiB (%+.1f%%)", ct.Name, ct.WorkingSet.Value/(1<<20), want/(1<<20), 100*off)
			if math.Abs(off) > kubeletMemoryTolerance {
				t.Errorf("%s: working set %.0f bytes, the kubelet's %.0f: %+.1f%%, want within ±%.0f%%", ct.Name, ct.WorkingSet.Value, want, 100*off, 100*kubeletMemoryTolerance)
			}
		}
		if ct.Role == "probe" {
			continue // a probe is no resource of an execution
		}
		r, ok := s.Resource("cpu:" + ct.Name)
		if !ok || !r.Demand.OK || r.Demand.Value <= 0 {
			t.Errorf("%s: CPU resource %+v (present %v), want a demand after the load", ct.Name, r, ok)
			continue
		}
		t.Logf("%s: %.1f ms of CPU per execution on %.2f cores", ct.Name, 1000*r.Demand.Value, r.Servers.Value)
	}
	host, _ := s.Resource("cpu:host")
	t.Logf("cpu:host: %.2f cores of other work on the node", host.Background.Value)
	if !host.Background.OK || host.Background.Value < 0 {
		t.Errorf("no n8n_resource_background_servers{resource=\"cpu:host\"} (%+v): the node's other work is not counted apart", host.Background)
	}
}

// kubeletWorkingSets reads container_memory_working_set_bytes from the
// node's kubelet through the apiserver, keyed as the exporter names
// containers: "<namespace>/<pod>/<container>".
func kubeletWorkingSets(t *testing.T, c *labCluster) map[string]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var nodes struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := kube.GetJSON(ctx, c.admin, c.api+"/api/v1/nodes", &nodes); err != nil || len(nodes.Items) != 1 {
		t.Fatalf("the lab's node: %v (%d nodes)", err, len(nodes.Items))
	}
	fams, err := parseMetrics(ctx, c.admin, c.api+"/api/v1/nodes/"+nodes.Items[0].Metadata.Name+"/proxy/metrics/resource")
	if err != nil {
		t.Fatalf("the kubelet's resource metrics: %v", err)
	}
	out := map[string]float64{}
	for _, m := range fams["container_memory_working_set_bytes"].GetMetric() {
		l := map[string]string{}
		for _, p := range m.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		out[l["namespace"]+"/"+l["pod"]+"/"+l["container"]] = m.GetGauge().GetValue()
	}
	return out
}

// parseMetrics reads the text exposition at u with client (the kubelet's:
// the exporter's is read with snapshot.Reader).
func parseMetrics(ctx context.Context, client *http.Client, u string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, res.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", u, err)
	}
	return fams, nil
}
