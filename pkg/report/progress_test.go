package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

func sampleProgress() loadgen.Progress {
	return loadgen.Progress{Step: 1, Steps: 3, Load: loadgen.Step{VUs: 10}, Elapsed: 12 * time.Second, Remaining: 48 * time.Second,
		Figures: loadgen.Summary{Throughput: 4.98, PassRate: 1, Latency: loadgen.Latency{P95: 2.04}}, InFlight: 10}
}

func TestProgressLine(t *testing.T) {
	line := ProgressLine(sampleProgress())
	for _, want := range []string{"step 2/3", "10 VU", "elapsed 12s", "left 48s", "4.98 req/s", "p95 2.04s", "pass 100.0%"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}

func TestProgressPrinterTTYRedraws(t *testing.T) {
	var buf bytes.Buffer
	pp := &ProgressPrinter{W: &buf, TTY: true}
	pp.Update(sampleProgress())
	pp.Update(sampleProgress())
	pp.Done()
	out := buf.String()
	if strings.Count(out, "\r\x1b[K") != 2 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Errorf("tty output %q", out)
	}
}

func TestProgressPrinterPlainLinesAreThrottled(t *testing.T) {
	var buf bytes.Buffer
	pp := &ProgressPrinter{W: &buf, Every: time.Hour}
	for range 5 {
		pp.Update(sampleProgress())
	}
	pp.Done()
	if out := buf.String(); strings.Count(out, "\n") != 1 || strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("plain output %q", out)
	}
}
