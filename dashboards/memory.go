package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

const heapNote = " Heap panels miss Buffers (a Code node's Buffer lives outside the V8 heap), so read these container figures, not heap."

// perContainer is a container memory figure on either platform, summed by
// container and role: on Docker the exporter publishes it (n8nName); on
// Kubernetes the kubelet's cAdvisor does (cadvisorName), joined with
// n8n_container_info for the role and named <namespace>/<pod>/<container>
// as the exporter names Kubernetes containers. role is a label matcher,
// e.g. role="runner", or empty.
func perContainer(n8nName, cadvisorName, role string) string {
	own, info := n8nName, metricname.ContainerInfo+`{pod!=""}`
	if role != "" {
		own, info = n8nName+`{`+role+`}`, metricname.ContainerInfo+`{pod!="",`+role+`}`
	}
	return `sum by (container, role) (` + own + `) or sum by (container, role) (label_join(` + cadvisorName +
		`{container!="",container!="POD"} * on (namespace,pod,container) group_left (role) ` + info +
		`, "container", "/", "namespace", "pod", "container"))`
}

// cAdvisor's names for the same figures (dashboards/metricnames.Foreign).
const (
	cadvisorWorkingSet = "container_memory_working_set_bytes"
	cadvisorRSS        = "container_memory_rss"
)

// memoryRow reads container memory as docker stats does, by role.
func memoryRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Memory"))
	b.WithPanel(graph("Working set vs limit",
		"Working set (usage minus inactive file, as docker stats shows; cAdvisor's on Kubernetes) per container by role, with each container's memory limit where one is set. "+
			"Bad when a runner's working set nears its limit: the next task's Buffers get it OOM-killed."+heapNote,
		"bytes", 12,
		q(perContainer(metricname.ContainerWorkingSet, cadvisorWorkingSet, ""), "{{role}} {{container}}"),
		q(metricname.ContainerMemoryLimit+` > 0`, "limit {{container}}")))
	b.WithPanel(statPanel("Runner memory of limit",
		"Each runner's working set as a share of its memory limit. Orange from 80 %, red from 90 %: a runner holds up to its concurrency × the task's memory.",
		"percentunit", 6,
		q(`(`+perContainer(metricname.ContainerWorkingSet, cadvisorWorkingSet, `role="runner"`)+`) / on (container, role) (sum by (container, role) (`+
			metricname.ContainerMemoryLimit+`{role="runner"}) > 0)`, "{{container}}")).
		Thresholds(thresholds("green", step{0.8, "orange"}, step{0.9, "red"})).
		Height(8))
	b.WithPanel(statPanel("Runners without memory limit",
		"Runner containers with no memory limit. Red above 0: put the limit on the runner, not only on the worker, or one burst of big tasks takes the host's memory.",
		"none", 6,
		q(`sum(`+metricname.ContainerMemoryLimit+`{role="runner"} == bool 0)`, "runners without limit")).
		Height(8).
		ColorMode("background").
		Thresholds(thresholds("green", step{1, "red"})))
	b.WithPanel(graph("RSS",
		"Anonymous memory per container (total_rss on cgroup v1, anon on v2; cAdvisor's rss on Kubernetes): what the processes themselves hold, without page cache. "+
			"Bad when it keeps climbing between loads: a leak, or tasks that hold data."+heapNote,
		"bytes", 8,
		q(perContainer(metricname.ContainerRSS, cadvisorRSS, ""), "{{role}} {{container}}")))
	b.WithPanel(graph("Restarts and OOM kills",
		"Docker's restart count and the OOM kills the container's cgroup counted (a runner under a supervisor can be killed without the container dying). "+
			"Bad when either rises: tasks in flight were lost.",
		"none", 8,
		q(metricname.ContainerRestarts, "restarts {{container}}"),
		q(metricname.ContainerOOMKills, "OOM kills {{container}}")))
	b.WithPanel(statPanel("OOM-killed",
		"Whether Docker or the cgroup reports an OOM kill for the container. Red means it happened: raise the limit or lower that runner's concurrency.",
		"none", 8,
		q(`max by (container) (`+metricname.ContainerOOMKilled+`)`, "{{container}}")).
		Height(8).
		ColorMode("background").
		Mappings(textMap(map[string]dashboard.ValueMappingResult{
			"0": word("ok", "green", 0),
			"1": word("OOM-killed", "red", 1),
		})))
}
