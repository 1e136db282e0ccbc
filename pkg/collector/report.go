package collector

import (
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// SourceResult is one source's outcome in one scrape.
type SourceResult struct {
	Name     string
	Up       bool
	Duration time.Duration
	Err      string
}

// ServiceTime is one stage's time as one source measured it.
type ServiceTime struct {
	Stage  string // "job" or "task"
	Source string // "redis", "n8n", "probe", "config"
	Time   time.Duration
	Note   string // how it was measured, for the landing page
}

// Report is everything one scrape learned; metrics and the landing page
// are both rendered from it.
type Report struct {
	At         time.Time
	Sources    []SourceResult
	Processes  []topology.Process
	NotCounted []topology.NotCounted      // objects holding n8n processes left out, e.g. pending pods
	Memory     map[string]topology.Memory // by process ID
	Topology   topology.Topology
	Queue      map[string]int64 // nil when Redis was not read
	Measured   []ServiceTime
	Used       map[string]ServiceTime // stage → the measurement the model used
	Skipped    []string               // measurements left out this scrape, and why
	Verdict    *capacity.Verdict      // nil without workers
	VerdictErr string
	// Bounds is the bound analysis over slots and CPU (nil without a
	// verdict); CPU is what the demand sampler held (nil when it is off).
	Bounds    *capacity.Bounds
	BoundsErr string
	CPU       *CPUReport
	// LeftOut names the processes this discovery listed but could not
	// read; LeftOutTotal counts them since start, by platform source.
	LeftOut      []string
	LeftOutTotal map[string]uint64
}

func (r *Report) addSource(s SourceResult) { r.Sources = append(r.Sources, s) }
