package collector

import (
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

var containerInfo = desc(metricname.ContainerInfo, "1 for every n8n container, with its role. In Kubernetes namespace, pod and container are "+
	"the labels of the kubelet's cAdvisor series (container_memory_working_set_bytes), so they join on them; in Docker "+
	"namespace and pod are empty and container is the container name.", "namespace", "pod", "container", "role")

// infoLabels splits a process's identity into cAdvisor's labels: a
// Kubernetes container is named "<namespace>/<pod>/<container>" with its
// pod "<namespace>/<pod>" as instance; a Docker container has its name.
func infoLabels(p topology.Process) (namespace, pod, container string) {
	if ctr, ok := strings.CutPrefix(p.Name, p.Instance+"/"); ok && p.Instance != "" {
		if ns, pod, ok := strings.Cut(p.Instance, "/"); ok {
			return ns, pod, ctr
		}
	}
	return "", "", p.Name
}

func emitContainerInfo(r *Report, ch chan<- prometheus.Metric) {
	for _, p := range r.Processes {
		ns, pod, ctr := infoLabels(p)
		gauge(ch, containerInfo, 1, ns, pod, ctr, string(p.Role))
	}
}
