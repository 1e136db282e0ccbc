package report

import (
	"fmt"
	"io"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// ProgressLine renders a sweep's progress on one line.
func ProgressLine(p loadgen.Progress) string {
	phase := ""
	if p.Warmup {
		phase = " warm-up"
	}
	f := p.Figures
	return fmt.Sprintf("step %d/%d %s%s  elapsed %s  left %s  %.2f req/s passing  p95 %s  pass %.1f%%  in flight %d",
		p.Step+1, p.Steps, p.Load.Label(), phase, p.Elapsed.Round(time.Second), p.Remaining.Round(time.Second),
		f.Throughput, FormatSeconds(f.Latency.P95), 100*f.PassRate, p.InFlight)
}

// FormatSeconds renders a latency in seconds with a sensible unit.
func FormatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// ProgressPrinter writes progress for a person. On a terminal it redraws
// one line; elsewhere (CI logs, pipes) it writes a plain line at most
// every Every.
type ProgressPrinter struct {
	W     io.Writer
	TTY   bool
	Every time.Duration
	last  time.Time
	drawn bool
}

// Update is a Sweep.OnProgress callback.
func (pp *ProgressPrinter) Update(p loadgen.Progress) {
	if pp.TTY {
		fmt.Fprintf(pp.W, "\r\x1b[K%s", ProgressLine(p))
		pp.drawn = true
		return
	}
	now := time.Now()
	if now.Sub(pp.last) < pp.Every {
		return
	}
	pp.last = now
	fmt.Fprintln(pp.W, ProgressLine(p))
}

// Done ends a redrawn line so later output starts clean.
func (pp *ProgressPrinter) Done() {
	if pp.TTY && pp.drawn {
		fmt.Fprintln(pp.W)
		pp.drawn = false
	}
}

// StepDone is a Sweep.OnStep callback: one line per finished step.
func (pp *ProgressPrinter) StepDone(s loadgen.StepResult) {
	pp.Done()
	f := s.Figures
	fmt.Fprintf(pp.W, "step %d %s done: pass %.1f%%  errors %.1f%%  %.2f req/s passing  p50 %s  p95 %s  in flight %.1f\n",
		s.Index+1, s.Load.Label(), 100*f.PassRate, 100*f.ErrorRate, f.Throughput,
		FormatSeconds(f.Latency.P50), FormatSeconds(f.Latency.P95), f.MeanInFlight)
}
