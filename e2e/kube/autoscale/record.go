// Package autoscale is the record of an autoscaler under load in the kube
// lab: the worker Deployment's replicas, the load generator's throughput,
// the exporter's ceiling and the HPA's metric over time, per scaler, and
// the page that draws them.
package autoscale

import (
	"encoding/json"
	"fmt"
	"os"
)

// Sample is one reading, taken every few seconds while a phase runs.
type Sample struct {
	T        float64 `json:"t_seconds"` // since the phase's load began
	Load     bool    `json:"load"`      // the load generator was running
	Replicas int     `json:"replicas"`  // the Deployment's desired replicas
	Ready    int     `json:"ready"`     // its ready pods
	// Throughput is the load generator's passes per second over the
	// Bin seconds before T.
	Throughput float64 `json:"throughput_per_second"`
	// Ceiling, Binding, SlotCeiling and Workers are the exporter's: the
	// cluster's ceiling (0 when it published none), the resource that
	// sets it, the workers' slot ceilings summed, and the workers it saw.
	Ceiling     float64 `json:"ceiling_per_second"`
	Binding     string  `json:"binding"`
	SlotCeiling float64 `json:"slot_ceiling_per_second"`
	Workers     int     `json:"exporter_workers"`
	// Waiting and Active are Bull's jobs by state, as the exporter read
	// them.
	Waiting float64 `json:"jobs_waiting"`
	Active  float64 `json:"jobs_active"`
	// Metric is the HPA's current value of the scaler's metric (per pod,
	// the highest over its triggers); Target what it aims for.
	Metric float64 `json:"hpa_metric"`
	Target float64 `json:"hpa_target"`
}

// Phase is one scaler under the same load.
type Phase struct {
	Name    string   `json:"name"`   // queue, saturation
	Scaler  string   `json:"scaler"` // what its ScaledObject scales on
	Bin     float64  `json:"bin_seconds"`
	Samples []Sample `json:"samples"`
	// Checks are the test's verdicts on this phase, in order.
	Checks []Check `json:"checks"`
}

// Check is one assertion and the figures it compared.
type Check struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

// Record is the whole run.
type Record struct {
	N8nVersion  string  `json:"n8n_version"`
	KEDAVersion string  `json:"keda_version"`
	Setup       string  `json:"setup"`
	VUs         int     `json:"vus"`
	PodCeiling  float64 `json:"pod_ceiling_per_second"` // one pod's runner slots ÷ the slot cycle
	Demand      float64 `json:"demand_per_second"`      // VUs ÷ the cycle measured at one VU
	Phases      []Phase `json:"phases"`
}

// MaxReplicas is the largest desired replica count the phase saw, from
// sample index from on.
func (p Phase) MaxReplicas(from int) int {
	m := 0
	for _, s := range p.Samples[min(from, len(p.Samples)):] {
		m = max(m, s.Replicas)
	}
	return m
}

// FirstAbove is the time of the first sample whose desired replicas
// exceed n, or -1.
func (p Phase) FirstAbove(n int) float64 {
	for _, s := range p.Samples {
		if s.Replicas > n {
			return s.T
		}
	}
	return -1
}

// Settled are the indexes of the samples whose desired pods were all
// ready then and one sample before: the exporter has had a scrape
// interval to see them.
func (p Phase) Settled() []int {
	var out []int
	for i := 1; i < len(p.Samples); i++ {
		s, prev := p.Samples[i], p.Samples[i-1]
		if s.Ready == s.Replicas && prev.Ready == s.Ready && prev.Replicas == s.Replicas {
			out = append(out, i)
		}
	}
	return out
}

// Add records a check's verdict and returns it.
func (p *Phase) Add(name string, pass bool, format string, args ...any) bool {
	p.Checks = append(p.Checks, Check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, args...)})
	return pass
}

// Load reads a record written by Save.
func Load(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Save writes the record as indented JSON.
func (r *Record) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
