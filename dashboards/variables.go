package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// InputName is the __inputs entry Grafana's import asks to map.
const InputName = "DS_PROMETHEUS"

func datasourceVariable() *dashboard.DatasourceVariableBuilder {
	return dashboard.NewDatasourceVariableBuilder("datasource").
		Label("Data source").
		Type("prometheus").
		Current(dashboard.VariableOption{
			Text:  dashboard.StringOrArrayOfString{String: cog.ToPtr("${" + InputName + "}")},
			Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("${" + InputName + "}")},
		})
}

// labelVariable offers the values of one label, all selected by default.
func labelVariable(name, label, metric string) *dashboard.QueryVariableBuilder {
	def := "label_values(" + metric + ", " + name + ")"
	return dashboard.NewQueryVariableBuilder(name).
		Label(label).
		Datasource(ds).
		Query(dashboard.StringOrMap{String: cog.ToPtr(def)}).
		Definition(def).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).
		IncludeAll(true).
		AllValue(".*").
		Current(dashboard.VariableOption{
			Text:  dashboard.StringOrArrayOfString{String: cog.ToPtr("All")},
			Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("$__all")},
		})
}
