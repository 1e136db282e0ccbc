package dashboards

import (
	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// typeSlots shows each worker's runner slots per task type: the runners
// image keeps a JavaScript and a Python pool, and a task takes only a slot
// of its own type.
func typeSlots() *statBuilder {
	return statPanel("Runner slots per task type",
		"Each worker's runner slots by task type (javascript, python): a Code task takes only a slot of its own type, so Python slots add nothing to JavaScript tasks. "+
			"Bad when a type your workflows use reads 0 on a worker: its tasks there wait N8N_RUNNERS_TASK_REQUEST_TIMEOUT and fail.",
		"none", 12,
		q(metricname.WorkerTaskTypeRunnerCapacity+`{`+byWorker+`}`, "{{worker}} {{task_type}}"))
}

// typeCeilings shows the slot ceiling were every Code task of one type.
func typeCeilings() *statBuilder {
	return statPanel("Slot ceiling per task type",
		"Executions per second the slots allow were every Code task of that type, at the measured service times; the cluster's ceiling assumes JavaScript. "+
			"Bad when the type your workflows use sits below your load: add runners of that type.",
		"suffix: /s", 12,
		q(metricname.ClusterTaskTypeCeiling, "{{task_type}}")).
		Decimals(2)
}
