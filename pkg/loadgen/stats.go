package loadgen

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// Latencies are recorded in microseconds from 1 µs to one hour with three
// significant digits: 0.1 % resolution at any scale.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }

// stepStats accumulates one step's measured window. It is not safe for
// concurrent use; the recorder serialises access.
type stepStats struct {
	passing  *hdrhistogram.Histogram // latency of passing requests
	all      *hdrhistogram.Histogram // latency of every completed request
	counts   [numOutcomes]int64
	examples [numOutcomes]string // first detail seen per error kind, redacted
	late     int64
	inflight float64 // sum of in-flight samples
	samples  int64
	vus      map[int64]*vuPasses // closed loop: each VU's passes
	want     int                 // closed loop: the step's VUs; 0 for totals and open loops
}

func newStepStats() *stepStats {
	return &stepStats{passing: newHist(), all: newHist()}
}

// add files one result that completed at end; vu names the closed loop's
// VU that sent it (-1: the open loop).
func (s *stepStats) add(end time.Time, vu int64, lat time.Duration, rep Reply) {
	o := rep.Outcome
	s.counts[o]++
	if o == OutcomePass && vu >= 0 {
		s.pass(vu, end)
	}
	if s.examples[o] == "" {
		s.examples[o] = redact.Text(rep.Detail) // errors quote the URL, query and password too
	}
	if o == OutcomeDropped {
		return // never sent: it has no latency
	}
	us := min(max(lat.Microseconds(), histMin), histMax)
	_ = s.all.RecordValue(us) // clamped into the histograms' range: no error
	if o == OutcomePass {
		_ = s.passing.RecordValue(us)
	}
}

// merge adds o into s, for run totals.
func (s *stepStats) merge(o *stepStats) {
	s.passing.Merge(o.passing)
	s.all.Merge(o.all)
	for i := range s.counts {
		s.counts[i] += o.counts[i]
		if s.examples[i] == "" {
			s.examples[i] = o.examples[i]
		}
	}
	s.late += o.late
	s.inflight += o.inflight
	s.samples += o.samples
}

// Summary is the figures of one step or of the whole run, in report
// order. Times are seconds so the JSON needs no Go duration parsing.
type Summary struct {
	WindowSeconds float64           `json:"window_seconds"`
	Requests      int64             `json:"requests"` // completed in the window, plus dropped starts
	Passed        int64             `json:"passed"`
	PassRate      float64           `json:"pass_rate"`
	ErrorRate     float64           `json:"error_rate"`
	Errors        map[string]int64  `json:"errors"`                     // by kind: status, timeout, connection, check, dropped
	ErrorExamples map[string]string `json:"error_examples,omitempty"`   // first error message per kind
	Throughput    float64           `json:"throughput_per_second"`      // passing requests per second
	Basis         string            `json:"throughput_basis,omitempty"` // BasisWindow or BasisVUCycles
	Latency       Latency           `json:"latency"`                    // passing requests only: fast failures must not look fast
	LatencyAll    Latency           `json:"latency_all"`                // every completed request
	MeanInFlight  float64           `json:"mean_in_flight"`
	Late          int64             `json:"late_starts"` // open loop: started later than LateAfter
}

// Latency is a percentile summary in seconds.
type Latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_seconds"`
	P90   float64 `json:"p90_seconds"`
	P95   float64 `json:"p95_seconds"`
	P99   float64 `json:"p99_seconds"`
	Mean  float64 `json:"mean_seconds"`
	Max   float64 `json:"max_seconds"`
}

func latencyOf(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	sec := func(us float64) float64 { return us / 1e6 }
	q := func(p float64) float64 { return sec(float64(h.ValueAtQuantile(p))) }
	return Latency{
		Count: h.TotalCount(),
		P50:   q(50), P90: q(90), P95: q(95), P99: q(99),
		Mean: sec(h.Mean()),
		Max:  sec(float64(h.Max())),
	}
}

func (s *stepStats) summary(window time.Duration) Summary {
	sum := Summary{WindowSeconds: window.Seconds(), Passed: s.counts[OutcomePass], Errors: map[string]int64{}, Late: s.late}
	for _, c := range s.counts {
		sum.Requests += c
	}
	for _, k := range ErrorKinds() {
		sum.Errors[k.String()] = s.counts[k]
		if s.examples[k] != "" {
			if sum.ErrorExamples == nil {
				sum.ErrorExamples = map[string]string{}
			}
			sum.ErrorExamples[k.String()] = s.examples[k]
		}
	}
	if sum.Requests > 0 {
		sum.PassRate = float64(sum.Passed) / float64(sum.Requests)
		sum.ErrorRate = 1 - sum.PassRate
	}
	if window > 0 {
		sum.Throughput, sum.Basis = float64(sum.Passed)/window.Seconds(), BasisWindow
	}
	if r, ok := cycleRate(s.vus, s.want, window); ok && sum.Passed == sum.Requests {
		sum.Throughput, sum.Basis = r, BasisVUCycles
	}
	if s.samples > 0 {
		sum.MeanInFlight = s.inflight / float64(s.samples)
	}
	sum.Latency = latencyOf(s.passing)
	sum.LatencyAll = latencyOf(s.all)
	return sum
}
