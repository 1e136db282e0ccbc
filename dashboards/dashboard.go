package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
)

// UID is the dashboard's stable uid.
const UID = "n8n-ceiling"

// Build assembles the dashboard: variables, the loadctl step annotation,
// and the six rows in reading order.
func Build() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder("n8n ceiling").
		Uid(UID).
		Description("Which limit is the real one (worker concurrency or task-runner limit), the ceiling it sets, and whether throughput is at it.").
		Tags([]string{"n8n", "n8n-ceiling"}).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("10s").
		Time("now-30m", "now").
		Timezone(common.TimeZoneBrowser).
		WithVariable(datasourceVariable()).
		WithVariable(labelVariable("worker", "Worker", metricname.WorkerConcurrency)).
		WithVariable(labelVariable("probe", "Broker probe", metricname.RunnerTasksRunning)).
		Annotation(dashboard.NewAnnotationQueryBuilder().
			Name("loadctl steps").
			Datasource(ds).
			Enable(true).
			IconColor("purple").
			Expr(`changes(` + metricname.LoadctlStepsStarted + `[$__interval]) > 0`).
			TitleFormat("loadctl step started"))
	for _, row := range []func(*dashboard.DashboardBuilder){verdictRow, throughputRow, heldRow, taskRequestsRow, timeRow, memoryRow, healthRow} {
		row(b)
	}
	d, err := b.Build()
	if err != nil {
		return d, err
	}
	numberPanels(&d)
	return d, nil
}

// numberPanels gives every panel and row a stable id in layout order.
func numberPanels(d *dashboard.Dashboard) {
	for i := range d.Panels {
		id := uint32(i + 1)
		if p := d.Panels[i].Panel; p != nil {
			p.Id = &id
		}
		if r := d.Panels[i].RowPanel; r != nil {
			r.Id = id
		}
	}
}
