package dashboards

import (
	"encoding/json"
	"fmt"
)

// input and require are Grafana's import header: the datasource the user
// maps on import, and the plugins the dashboard needs.
type input struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Type        string `json:"type"`
	PluginID    string `json:"pluginId"`
	PluginName  string `json:"pluginName"`
}

type require struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// JSON renders the dashboard as Grafana's "export for sharing" shape: the
// SDK's dashboard plus __inputs and __requires, indented, ending in a
// newline. Keys come out sorted, so the bytes are stable.
func JSON() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, fmt.Errorf("build dashboard: %w", err)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	doc["__inputs"] = []input{{Name: InputName, Label: "Prometheus",
		Description: "The Prometheus that scrapes the n8n-ceiling exporter, its broker probes, n8n and loadctl.",
		Type:        "datasource", PluginID: "prometheus", PluginName: "Prometheus"}}
	doc["__requires"] = []require{
		{Type: "grafana", ID: "grafana", Name: "Grafana", Version: "10.0.0"},
		{Type: "datasource", ID: "prometheus", Name: "Prometheus", Version: "1.0.0"},
		{Type: "panel", ID: "bargauge", Name: "Bar gauge", Version: ""},
		{Type: "panel", ID: "stat", Name: "Stat", Version: ""},
		{Type: "panel", ID: "timeseries", Name: "Time series", Version: ""},
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
