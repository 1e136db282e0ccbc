package loadgen

import (
	"fmt"
	"io"
	"time"
)

// Progress is a live view of the running step.
type Progress struct {
	Step      int // 0-based
	Steps     int
	Load      Step
	Warmup    bool // still in the unmeasured lead-in
	Elapsed   time.Duration
	Remaining time.Duration // of the whole sweep
	Figures   Summary       // the step's measured window so far
	InFlight  int64
}

// Line renders p on one line.
func (p Progress) Line() string {
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
func (pp *ProgressPrinter) Update(p Progress) {
	if pp.TTY {
		fmt.Fprintf(pp.W, "\r\x1b[K%s", p.Line())
		pp.drawn = true
		return
	}
	now := time.Now()
	if now.Sub(pp.last) < pp.Every {
		return
	}
	pp.last = now
	fmt.Fprintln(pp.W, p.Line())
}

// Done ends a redrawn line so later output starts clean.
func (pp *ProgressPrinter) Done() {
	if pp.TTY && pp.drawn {
		fmt.Fprintln(pp.W)
		pp.drawn = false
	}
}
