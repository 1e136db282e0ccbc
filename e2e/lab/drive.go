package lab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// DriveResult counts what a closed-loop run saw inside its measuring window.
type DriveResult struct {
	Window time.Duration
	OK     int     // responses that were HTTP 200 with {ok:true}
	Failed int     // everything else, including timeouts
	Errors []error // one example per kind of failure, for the log
	// PerSec is the passing throughput as loadctl counts it: whole VU
	// cycles when every VU passed at least twice and none failed, else
	// OK ÷ Window (Basis says which).
	PerSec float64
	Basis  string
	// Mean is the mean time of the OK requests inside the window.
	Mean time.Duration
	// FirstFailed is when the first failure ended, warm-up included; zero
	// when none failed.
	FirstFailed time.Time
}

var errInterrupted = errors.New("the run ended before its window closed")

// ClosedLoop runs vus virtual users, each with one request in flight, for
// warmup+window through loadctl's engine (pkg/loadgen), and counts the
// requests that complete inside the window. A cancelled ctx ends it early
// with what it counted.
func ClosedLoop(ctx context.Context, url string, body []byte, vus int, warmup, window time.Duration) DriveResult {
	out := DriveResult{Window: window}
	target, err := BenchTarget(url, body, vus, 2*time.Minute)
	if err != nil {
		out.Errors = []error{err}
		return out
	}
	watch := &failWatch{}
	sw := &loadgen.Sweep{
		Plan:     loadgen.Plan{Model: loadgen.Closed, Steps: loadgen.ClosedSteps([]int{vus}), Step: window, Warmup: warmup},
		Target:   target,
		Observer: watch,
	}
	res, err := sw.Run(ctx)
	out.FirstFailed = watch.first()
	switch {
	case err != nil:
		out.Errors = []error{err}
	case len(res.Steps) == 0:
		out.Errors = []error{errInterrupted}
	default:
		out.fill(res.Steps[0].Figures)
		if res.Interrupted {
			out.Errors = append(out.Errors, errInterrupted)
		}
	}
	return out
}

// BenchTarget posts body to the bench webhook at url and passes what
// CallBench passes: HTTP 200 with {"ok":true}. Its client keeps vus
// connections and gives each request timeout.
func BenchTarget(url string, body []byte, vus int, timeout time.Duration) (*loadgen.Target, error) {
	checks, err := loadgen.ParseChecks([]int{http.StatusOK}, []string{"ok==true"})
	if err != nil {
		return nil, err
	}
	return &loadgen.Target{URLs: []string{url}, Method: http.MethodPost, Body: body,
		ContentType: "application/json", Checks: checks, Client: loadgen.NewClient(timeout, vus)}, nil
}

// fill copies a step's figures.
func (r *DriveResult) fill(s loadgen.Summary) {
	r.OK, r.Failed = int(s.Passed), int(s.Requests-s.Passed)
	r.PerSec, r.Basis = s.Throughput, s.Basis
	r.Mean = time.Duration(s.Latency.Mean * float64(time.Second))
	for kind, msg := range s.ErrorExamples {
		r.Errors = append(r.Errors, fmt.Errorf("%s: %s", kind, msg))
	}
}

// failWatch notes when the first failed request ended, warm-up included.
type failWatch struct {
	mu sync.Mutex
	at time.Time
}

func (w *failWatch) StepStarted(int, loadgen.Step) {}
func (w *failWatch) InFlight(int64)                {}
func (w *failWatch) SweepDone()                    {}

func (w *failWatch) Result(_ time.Duration, o loadgen.Outcome) {
	if o == loadgen.OutcomePass {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() {
		w.at = time.Now()
	}
}

func (w *failWatch) first() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at
}
