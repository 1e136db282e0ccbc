package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

const heapNote = " Heap panels miss Buffers (a Code node's Buffer lives outside the V8 heap), so read these container figures, not heap."

// memoryRow reads container memory as docker stats does, by role.
func memoryRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Memory"))
	b.WithPanel(graph("Working set vs limit",
		"Working set (usage minus inactive file, as docker stats shows) per container by role, with each container's memory limit where one is set. "+
			"Bad when a runner's working set nears its limit: the next task's Buffers get it OOM-killed."+heapNote,
		"bytes", 12,
		q(metricname.ContainerWorkingSet, "{{role}} {{container}}"),
		q(metricname.ContainerMemoryLimit+` > 0`, "limit {{container}}")))
	b.WithPanel(statPanel("Runner memory of limit",
		"Each runner's working set as a share of its memory limit. Orange from 80 %, red from 90 %: a runner holds up to its concurrency × the task's memory.",
		"percentunit", 6,
		q(metricname.ContainerWorkingSet+`{role="runner"} / (`+metricname.ContainerMemoryLimit+`{role="runner"} > 0)`, "{{container}}")).
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
		"Anonymous memory per container (total_rss on cgroup v1, anon on v2): what the processes themselves hold, without page cache. "+
			"Bad when it keeps climbing between loads: a leak, or tasks that hold data."+heapNote,
		"bytes", 8,
		q(metricname.ContainerRSS, "{{role}} {{container}}")))
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
