package dashboards

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// PanelQuery is one query of a dashboard panel or annotation, as an
// operator's Grafana would send it.
type PanelQuery struct {
	Row, Panel, RefID, Expr string
}

// Queries reads every panel target and annotation expression from an
// exported dashboard, with the row each panel sits under.
func Queries(doc []byte) ([]PanelQuery, error) {
	var d struct {
		Panels []struct {
			Type, Title string
			Targets     []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			}
		}
		Annotations struct {
			List []struct{ Name, Expr string }
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("dashboard JSON: %w", err)
	}
	var out []PanelQuery
	row := ""
	for _, p := range d.Panels {
		if p.Type == "row" {
			row = p.Title
			continue
		}
		for _, t := range p.Targets {
			out = append(out, PanelQuery{Row: row, Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
		}
	}
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			out = append(out, PanelQuery{Row: "annotations", Panel: a.Name, Expr: a.Expr})
		}
	}
	return out, nil
}

// Substitute replaces Grafana variables ($name and ${name}) the way
// Grafana does before it sends a query. Longer names go first, so
// $__rate_interval is not read as $__rate.
func Substitute(expr string, vars map[string]string) string {
	pairs := make([]string, 0, 4*len(vars))
	for _, name := range sortedByLength(vars) {
		pairs = append(pairs, "${"+name+"}", vars[name], "$"+name, vars[name])
	}
	return strings.NewReplacer(pairs...).Replace(expr)
}

func sortedByLength(vars map[string]string) []string {
	names := slices.Collect(maps.Keys(vars))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	})
	return names
}
