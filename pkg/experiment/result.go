package experiment

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// SchemaVersion names the JSON layout; docs/experiment-json.md documents
// it. Bump it on any change a reader could trip over.
const SchemaVersion = "loadctl.experiment/v1"

// Result is one experiment run.
type Result struct {
	Schema   string       `json:"schema"`
	Spec     *Spec        `json:"spec"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Cases    []CaseResult `json:"cases"`
	Passed   bool         `json:"passed"` // every case ran and every check held
}

// CaseResult is what one case measured and how its checks went.
type CaseResult struct {
	Name     string            `json:"name"`
	Group    string            `json:"group,omitempty"`
	Env      map[string]string `json:"env"` // spec env plus case env, secret-looking values redacted
	Error    string            `json:"error,omitempty"`
	Webhooks []string          `json:"webhooks"`
	Exporter string            `json:"exporter"`
	// N8nVersion is what n8n's main stated on its /metrics once the case
	// settled (the hook's main-metrics endpoint); empty when unread.
	N8nVersion string            `json:"n8n_version,omitempty"`
	SettleSec  float64           `json:"settle_seconds"` // apply until the exporter showed the shape
	Settled    *Topology         `json:"settled,omitempty"`
	Measured   Measured          `json:"measured"`
	Predicted  *Prediction       `json:"predicted,omitempty"`
	Ratio      float64           `json:"measured_over_predicted,omitempty"`
	Model      *StepModel        `json:"model,omitempty"`    // the bound and the MVA at the step the checks read
	ModelAt    string            `json:"model_at,omitempty"` // that step: "last", or the best when empty
	Probe      *ProbeFigures     `json:"probe,omitempty"`
	Memory     []ContainerMemory `json:"memory"`
	Failures   Failures          `json:"failures"`
	Checks     []CheckResult     `json:"checks"`
	Passed     bool              `json:"passed"`
	Sweep      *loadgen.Result   `json:"sweep,omitempty"`
	Seed       map[string]string `json:"seed,omitempty"`
}

// Topology is the cluster shape the exporter reported.
type Topology struct {
	WorkerConcurrency    []int    `json:"worker_concurrency"`
	RunnerLimits         []int    `json:"runner_limits"`
	Workers              int      `json:"workers"`
	WorkersWithoutRunner int      `json:"workers_without_runner"`
	WithoutRunner        []string `json:"workers_without_runner_names"`
}

// Measured is the ceiling the load showed: the knee's throughput, or the
// best step's when no plateau was seen. Passing requests only.
type Measured struct {
	Ceiling float64      `json:"ceiling_per_second"`
	From    string       `json:"from"` // "knee", "best step" or "" when no step ran
	Step    loadgen.Step `json:"step"`
}

// Prediction is the exporter's view read after the load, so the probe's
// task time from the run is in it.
type Prediction struct {
	Ceiling     float64    `json:"ceiling_per_second"`
	ForLoad     float64    `json:"for_load_per_second"` // min(ceiling, VUs / job time) for a closed load
	Bottleneck  string     `json:"bottleneck"`
	Binding     string     `json:"binding,omitempty"`                 // the resource n8n_cluster_bottleneck marks
	SlotCeiling float64    `json:"slot_ceiling_per_second,omitempty"` // what the slots alone would allow
	Effective   int        `json:"effective_concurrency"`
	JobSeconds  float64    `json:"job_seconds"`
	JobSource   string     `json:"job_source,omitempty"`
	TaskSeconds float64    `json:"task_seconds"`
	TaskSource  string     `json:"task_source,omitempty"`
	Topology    Topology   `json:"topology"`
	Error       string     `json:"error,omitempty"`
	ReadAt      *time.Time `json:"read_at,omitempty"`
}

// ProbeFigures come from the broker probe's metrics over the run.
type ProbeFigures struct {
	Samples         int     `json:"samples"`
	RunningMax      float64 `json:"running_tasks_max"`
	RunningMedian   float64 `json:"running_tasks_median"`
	Tasks           float64 `json:"tasks"` // task-duration observations during the run
	MeanTaskSeconds float64 `json:"mean_task_seconds"`
}

// ContainerMemory is one container's working set over the run.
type ContainerMemory struct {
	Container     string `json:"container"`
	Role          string `json:"role"`
	BaselineBytes int64  `json:"baseline_bytes"` // before the load
	PeakBytes     int64  `json:"peak_bytes"`
	LimitBytes    int64  `json:"limit_bytes"` // 0 = unlimited
	OOMKills      int64  `json:"oom_kills"`   // during the run
	OOMKilled     bool   `json:"oom_killed"`  // Docker or the cgroup said so at some sample
	Restarts      int64  `json:"restarts"`    // during the run
}

// RiseBytes is peak minus baseline.
func (m ContainerMemory) RiseBytes() int64 { return m.PeakBytes - m.BaselineBytes }

// Failures count failed requests over the measured windows.
type Failures struct {
	Requests int64            `json:"requests"`
	Failed   int64            `json:"failed"`
	Rate     float64          `json:"rate"`
	ByKind   map[string]int64 `json:"by_kind"`
	// FirstAfterSec is when the first failure showed, from the load's
	// start (progress is read each second); null when none failed.
	FirstAfterSec *float64 `json:"first_after_seconds"`
}

// CheckResult is one acceptance check.
type CheckResult struct {
	Name   string `json:"name"`
	Want   string `json:"want"`
	Got    string `json:"got"`
	Passed bool   `json:"passed"`
	// Figure is the number a numeric check judged (a ratio, a rate, the
	// worst signed deviation), so repeated runs can be set side by side.
	Figure *float64 `json:"figure,omitempty"`
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Result) error { return loadgen.WriteIndentedJSON(w, r) }

// ReadJSON reads a result and rejects other schema versions.
// Each case's model is set again at the step its checks read (the best,
// or the last for model_at: last) of its recorded sweep, as a run sets it
// now (results written before chose the knee).
func ReadJSON(rd io.Reader) (*Result, error) {
	r, err := loadgen.ReadVersionedJSON(rd, "experiment result", SchemaVersion, func(r *Result) string { return r.Schema })
	if err != nil {
		return nil, err
	}
	for i, c := range r.Cases {
		if m := CheckedStepModel(c.Sweep, c.Predicted, c.ModelAt); m != nil {
			r.Cases[i].Model = m
		}
	}
	return r, nil
}

// ReadFile is ReadJSON of the file at path; a decoding error names the path.
func ReadFile(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
