package collector

import (
	"sort"
	"strings"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// settingRow is one setting of one process on `/`: its value and where it
// came from, or why it is unknown.
type settingRow struct {
	Name, Var, Value, From string
}

// settingRows lists every process's settings, by process name, each with
// its source: env, configmap, flag, declared (an n8n-ceiling.io/ label or
// annotation), observed (a probe) or default.
func settingRows(r *Report) []settingRow {
	ps := append([]topology.Process(nil), r.Processes...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	var rows []settingRow
	for _, p := range ps {
		for _, l := range p.Settings.Listed() {
			row := settingRow{Name: p.Name, Var: l.Var, Value: l.Value, From: string(l.From)}
			if l.Unknown != "" {
				row.Value, row.From = "unknown", strings.TrimPrefix(l.Unknown, l.Var+": ")
			}
			rows = append(rows, row)
		}
	}
	return rows
}
