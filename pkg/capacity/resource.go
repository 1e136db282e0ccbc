package capacity

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ResourceKind tells slot resources from CPU resources.
type ResourceKind string

// The kinds of resource.
const (
	KindSlots ResourceKind = "slots" // execution or task slots
	KindCPU   ResourceKind = "cpu"   // a process's or the host's cores
)

// MaxResourceName is the longest resource name accepted, in bytes.
const MaxResourceName = 200

// HostCPU names the host's CPUs.
const HostCPU = "cpu:host"

// DefaultProcessCores is the CPU one n8n process can use, in cores, unless
// configured (the exporter's EXPORTER_PROCESS_CORES, loadctl plan's
// --process-cores). Node runs
// JavaScript on one thread, and between tasks that thread also waits on its
// socket. Measured on the lab (two cores): a runner whose Code tasks only
// do arithmetic (e2e/experiments/cpu-bound.yaml, 10 million rounds a task)
// used 0.92 to 0.96 of a core at saturation over six 5 s windows of cgroup
// counters, mean 0.94, while the host stood at 1.5 of its 2 cores; its
// throughput, 9.40/s, was 0.938 of one core ÷ its CPU per execution.
const DefaultProcessCores = 0.94

// WorkerSlots names the concurrency slots of one n8n worker.
func WorkerSlots(worker string) string { return "slots:worker:" + worker }

// RunnerSlots names the task-runner slots attached to one n8n worker.
func RunnerSlots(worker string) string { return "slots:runner:" + worker }

// ContainerCPU names the CPU limit of one container.
func ContainerCPU(container string) string { return "cpu:" + container }

// The processes of a container whose n8n process launches its own task
// runner: n8n itself, and the runner, its child.
const (
	ProcessN8n    = "n8n"
	ProcessRunner = "runner"
)

// ProcessCPU names the CPU of one process (ProcessN8n or ProcessRunner) in
// a container: ContainerCPU(container) + "/" + process.
func ProcessCPU(container, process string) string { return ContainerCPU(container) + "/" + process }

// Resource is one thing every execution holds for a while: m servers
// (slots, or cores) and a demand D, the seconds one execution holds one of
// them. Its ceiling is m/D executions per second (the utilization law).
type Resource struct {
	Name    string
	Kind    ResourceKind
	Servers float64 // m: slots, or cores; a cgroup quota may be fractional
	Demand  float64 // D in seconds per execution; read only when Unknown is empty
	Unknown string  // why the demand is not known; empty when it is
	// Alone is a process thread's cores with the host's cores to itself,
	// where Servers is that less the share of its runnable time it waited
	// for a core; 0 when Servers is all there is.
	Alone float64
}

// Known reports whether the demand is known.
func (r Resource) Known() bool { return r.Unknown == "" }

// Ceiling is m/D executions per second: 0 when the demand is unknown,
// +Inf when it is zero (the resource bounds nothing).
func (r Resource) Ceiling() float64 {
	if !r.Known() {
		return 0
	}
	if r.Demand == 0 {
		return math.Inf(1)
	}
	return r.Servers / r.Demand
}

// Validate rejects a resource the bound analysis cannot use.
func (r Resource) Validate() error {
	if err := validName(r.Name); err != nil {
		return err
	}
	if r.Kind != KindSlots && r.Kind != KindCPU {
		return invalid("resource %s: kind must be %q or %q, got %q", r.Name, KindSlots, KindCPU, r.Kind)
	}
	if !positive(r.Servers) {
		return invalid("resource %s: servers must be a positive number, got %v", r.Name, r.Servers)
	}
	if r.Known() && !nonNegative(r.Demand) {
		return invalid("resource %s: demand must be a non-negative number of seconds, got %v", r.Name, r.Demand)
	}
	if r.Alone != 0 && !positive(r.Alone) {
		return invalid("resource %s: cores alone must be a positive number or 0 (none), got %v", r.Name, r.Alone)
	}
	return nil
}

// validName accepts a non-empty printable name of at most MaxResourceName
// bytes, so it can serve as a metric label value.
func validName(name string) error {
	if name == "" {
		return invalid("a resource or station needs a name")
	}
	if len(name) > MaxResourceName || !utf8.ValidString(name) {
		return invalid("name %.40q…: at most %d bytes of UTF-8", name, MaxResourceName)
	}
	if i := strings.IndexFunc(name, func(c rune) bool { return !unicode.IsPrint(c) }); i >= 0 {
		return invalid("name %q: unprintable character at byte %d", name, i)
	}
	return nil
}

func positive(x float64) bool    { return x > 0 && !math.IsInf(x, 1) }
func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
