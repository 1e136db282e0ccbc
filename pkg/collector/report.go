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

// Stage is the slot a service time holds.
type Stage string

// The two stages: a job holds a worker slot from pickup to completion, a
// task a runner slot.
const (
	StageJob  Stage = "job"
	StageTask Stage = "task"
)

// Stages are the stages in the order the pages list them.
var Stages = []Stage{StageJob, StageTask}

// Source names what measured a service time.
type Source string

// The sources of a service time.
const (
	SourceRedis  Source = "redis"  // Bull's jobs, by Little's law
	SourceN8n    Source = "n8n"    // n8n's execution histogram
	SourceProbe  Source = "probe"  // a broker probe's task times
	SourceConfig Source = "config" // EXPORTER_SERVICE_TIME
)

// ServiceTime is one stage's time as one source measured it.
type ServiceTime struct {
	Stage  Stage
	Source Source
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
	Pools      []PoolQueue      // each worker pool's queue, where pool workers run
	Measured   []ServiceTime
	Used       map[Stage]ServiceTime // stage → the measurement the model used
	Skipped    []string              // measurements left out this scrape, and why
	Wait       *TaskWait             // task requests' wait for a runner slot; nil unmeasured
	Runners    []WorkerRunners       // each production worker's runner state, in Topology.Workers' order
	Verdict    *capacity.Verdict     // nil without workers
	// Types are the slot verdicts per task type the runners serve,
	// JavaScript's (Verdict) first; nil without a verdict.
	Types      []TypeVerdict
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
	// PeersUnread is why the runners' connections were not read for
	// pairing ("" when they were, or nothing asked for them).
	PeersUnread string
}

func (r *Report) addSource(s SourceResult) { r.Sources = append(r.Sources, s) }
