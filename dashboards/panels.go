package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// ds points every query at the datasource variable, so one import serves
// any Prometheus.
var ds = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// query is one PromQL expression and its legend.
type query struct {
	expr, legend string
}

func q(expr, legend string) query { return query{expr: expr, legend: legend} }

// targets turns queries into Prometheus targets with refIds A, B, ….
func targets(qs []query) []cog.Builder[variants.Dataquery] {
	out := make([]cog.Builder[variants.Dataquery], len(qs))
	for i, x := range qs {
		out[i] = prometheus.NewDataqueryBuilder().
			Datasource(ds).
			RefId(string(rune('A' + i))).
			Expr(x.expr).
			LegendFormat(x.legend)
	}
	return out
}

// thresholds builds absolute steps: base colour, then value→colour pairs.
func thresholds(base string, steps ...step) *dashboard.ThresholdsConfigBuilder {
	list := []dashboard.Threshold{{Color: base}}
	for _, s := range steps {
		list = append(list, dashboard.Threshold{Value: cog.ToPtr(s.at), Color: s.color})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(list)
}

type step struct {
	at    float64
	color string
}

// statPanel is a stat of the last value per series, one tile per series.
type statBuilder = stat.PanelBuilder

func statPanel(title, desc, unit string, w uint32, qs ...query) *statBuilder {
	return stat.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(ds).
		Targets(targets(qs)).
		Unit(unit).
		Height(5).
		Span(w).
		ColorMode(common.BigValueColorModeValue).
		GraphMode(common.BigValueGraphModeNone).
		TextMode(common.BigValueTextModeValueAndName).
		Orientation(common.VizOrientationAuto).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}).Values(false)).
		Thresholds(thresholds("green"))
}

// graph is a time series panel with a table legend.
func graph(title, desc, unit string, w uint32, qs ...query) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(ds).
		Targets(targets(qs)).
		Unit(unit).
		Height(8).
		Span(w).
		Min(0).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true).
			Calcs([]string{"lastNotNull", "max"}))
}

// textMap maps exact values to words and colours.
func textMap(opts map[string]dashboard.ValueMappingResult) []dashboard.ValueMapping {
	return []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{Type: dashboard.MappingTypeValueToText, Options: opts}}}
}

func word(text, color string, index int32) dashboard.ValueMappingResult {
	return dashboard.ValueMappingResult{Text: cog.ToPtr(text), Color: cog.ToPtr(color), Index: cog.ToPtr(index)}
}
