package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// Selectors for the dashboard variables.
const (
	byWorker = `worker=~"$worker"`
	byProbe  = `probe=~"$probe"`
)

// verdictRow is the seed's side-by-side answer: both limits, the smaller
// one, which side it is, and the ceiling it gives.
func verdictRow(b *dashboard.DashboardBuilder) {
	b.WithRow(dashboard.NewRowBuilder("Verdict"))
	b.WithPanel(statPanel("Runner limits",
		"N8N_RUNNERS_MAX_CONCURRENCY of each runner container (Docker) and the limit the broker probe saw on the wire. "+
			"Bad when the runners of a worker add up to less than its worker concurrency: Code tasks then queue inside the worker.",
		"none", 5,
		q(metricname.RunnerMaxConcurrency+`{`+byWorker+`}`, "{{runner}} → {{worker}}"),
		q(metricname.RunnerInferredMaxConcurrency+`{`+byProbe+`}`, "wire: {{probe}}")))
	b.WithPanel(statPanel("Worker concurrency",
		"Jobs each worker takes from the queue at once (N8N_CONCURRENCY_PRODUCTION_LIMIT or --concurrency). "+
			"Bad when it is above the runner capacity: the extra slots hold jobs without adding throughput.",
		"none", 4, q(metricname.WorkerConcurrency+`{`+byWorker+`}`, "{{worker}}")))
	b.WithPanel(statPanel("Effective concurrency",
		"min(worker concurrency, runner capacity) per worker: the executions that can really run at once. "+
			"Bad when it is well below the worker concurrency the queue dashboard shows.",
		"none", 4, q(metricname.WorkerEffectiveConcurrency+`{`+byWorker+`}`, "{{worker}}")))
	b.WithPanel(bottleneckStat())
	b.WithPanel(statPanel("Ceiling",
		"The most executions per second the cluster can finish, the lowest servers ÷ demand over every resource (slots and CPU), and each worker's slots alone; absent until a service time is known. "+
			"Bad when measured throughput nears it: the next request waits, so add to the resource that binds.",
		"suffix: /s", 4,
		q(metricname.ClusterCeiling, "cluster"),
		q(metricname.WorkerCeiling+`{`+byWorker+`}`, "{{worker}}")).
		Decimals(2))
	b.WithPanel(statPanel("Workers without runner",
		"Workers whose Code tasks no runner serves; each such task fails after N8N_RUNNERS_TASK_REQUEST_TIMEOUT (60 s), silently until then. "+
			"Red above 0: add a runner per worker, in pairs.",
		"none", 3,
		q(`sum(`+metricname.WorkerRunnerCapacity+`{`+byWorker+`} == bool 0)`, "without runner")).
		ColorMode("background").
		Thresholds(thresholds("green", step{1, "red"})))
	b.WithPanel(whatBinds())
	b.WithPanel(cpuPerExecution())
	b.WithPanel(typeSlots())
	b.WithPanel(typeCeilings())
}

// bottleneckStat states the limiting side in words: the query encodes it
// as 1 = runner, 2 = worker, 0 = no runner at all.
func bottleneckStat() *statBuilder {
	return statPanel("Bottleneck",
		"The side that sets each worker's ceiling; runner-bound means more worker slots add nothing until the runner limit rises. "+
			"Bad when it reads no runner: that worker's Code tasks cannot run at all.",
		"none", 4,
		q(`sum by (worker) (`+metricname.WorkerBottleneck+`{component="runner",`+byWorker+`}) + 2 * sum by (worker) (`+metricname.WorkerBottleneck+`{component="worker",`+byWorker+`})`, "{{worker}}")).
		Mappings(textMap(map[string]dashboard.ValueMappingResult{
			"0": word("no runner", "red", 0),
			"1": word("runner-bound", "orange", 1),
			"2": word("worker-bound", "blue", 2),
		}))
}
