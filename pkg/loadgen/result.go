package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// SchemaVersion names the JSON layout; docs/loadctl-json.md documents it.
// Bump it on any change a reader could trip over.
const SchemaVersion = "loadctl.sweep/v1"

// Result is a whole sweep: what was asked, what each step measured, the
// knee and the run totals.
type Result struct {
	Schema      string            `json:"schema"`
	Settings    Settings          `json:"settings"`
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished"`
	Interrupted bool              `json:"interrupted"` // cancelled before the last step ended
	Steps       []StepResult      `json:"steps"`
	Knee        *Knee             `json:"knee"` // null: no plateau seen
	Total       Summary           `json:"total"`
	Thresholds  []ThresholdResult `json:"thresholds"`
}

// Settings records the sweep's inputs. Header values are left out: they
// often carry credentials. URL passwords and query values are redacted.
type Settings struct {
	Model            Model    `json:"model"`
	Steps            []Step   `json:"steps"`
	StepSeconds      float64  `json:"step_seconds"`
	WarmupSeconds    float64  `json:"warmup_seconds"`
	MaxInFlight      int      `json:"max_in_flight,omitempty"`
	LateAfterSeconds float64  `json:"late_after_seconds,omitempty"`
	StopAtKnee       bool     `json:"stop_at_knee"`
	URLs             []string `json:"urls"`
	Method           string   `json:"method"`
	HeaderNames      []string `json:"header_names"`
	ContentType      string   `json:"content_type,omitempty"`
	BodyBytes        int      `json:"body_bytes"`
	Body             string   `json:"body,omitempty"` // with Sweep.RecordBody, JSON bodies only
	ExpectStatus     []int    `json:"expect_status"`
	Checks           []string `json:"checks"`
	TimeoutSeconds   float64  `json:"timeout_seconds"`
	Exporter         string   `json:"exporter,omitempty"` // StepHook.Source, redacted
}

// StepResult is one step's load and figures. Exporter is what a StepHook
// attached, kept as the hook wrote it (loadctl: the comparison with the
// exporter's model, read back with pkg/comparison).
type StepResult struct {
	Index    int             `json:"index"` // 0-based
	Load     Step            `json:"load"`
	Started  time.Time       `json:"started"`
	Figures  Summary         `json:"figures"`
	Exporter json.RawMessage `json:"exporter,omitempty"`
}

// Knee is the lowest step already on the plateau; its throughput is the
// measured ceiling.
type Knee struct {
	Index           int     `json:"index"`
	Load            Step    `json:"load"`
	MeasuredCeiling float64 `json:"measured_ceiling_per_second"`
}

// Label names a step's load for tables and charts.
func (s Step) Label() string {
	if s.VUs > 0 {
		return fmt.Sprintf("%d VU", s.VUs)
	}
	return fmt.Sprintf("%g/s", s.Rate)
}

// KneePoints turns steps into the knee finder's input. Latency is the p50
// of every completed request, failures included: past the ceiling requests
// time out, and those timeouts are the rising latency. A step where
// nothing completed (all starts dropped) counts as infinitely slow.
func KneePoints(steps []StepResult) []KneePoint {
	pts := make([]KneePoint, len(steps))
	for i, s := range steps {
		lat := s.Figures.LatencyAll.P50
		if s.Figures.LatencyAll.Count == 0 && s.Figures.Requests > 0 {
			lat = math.Inf(1)
		}
		pts[i] = KneePoint{Throughput: s.Figures.Throughput, Latency: lat}
	}
	return pts
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Result) error { return WriteIndentedJSON(w, r) }

// ReadJSON reads a result and rejects other schema versions.
func ReadJSON(rd io.Reader) (*Result, error) {
	return ReadVersionedJSON(rd, "sweep result", SchemaVersion, func(r *Result) string { return r.Schema })
}
