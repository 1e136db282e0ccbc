package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
)

// Table writes the final per-step table, the knee and the thresholds.
func Table(w io.Writer, res *loadgen.Result) error {
	cols := columnsFor(res, false)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(header(cols), "\t")+"\t")
	for _, r := range rows(res) {
		fmt.Fprintln(tw, strings.Join(cells(cols, r), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, KneeLine(res))
	for _, line := range ErrorExampleLines(res) {
		fmt.Fprintln(w, line)
	}
	if res.Interrupted {
		fmt.Fprintln(w, "sweep interrupted: the last step may be short")
	}
	for _, t := range res.Thresholds {
		fmt.Fprintf(w, "threshold %-20s %s (value %s)\n", t.Expr, verdict(t.Passed), num(t.Value))
	}
	return nil
}

// KneeLine names the knee and the measured ceiling in one sentence.
func KneeLine(res *loadgen.Result) string {
	if res.Knee == nil {
		return "knee: not found (throughput still rising, or too few steps after the peak)"
	}
	k := res.Knee
	line := fmt.Sprintf("knee: step %d (%s), measured ceiling %.2f req/s", k.Index+1, k.Load.Label(), k.MeasuredCeiling)
	c := comparison.Of(res.Steps[k.Index])
	if c == nil || c.Error != "" || c.Ceiling <= 0 {
		return line
	}
	line += fmt.Sprintf(", exporter's ceiling %.2f req/s set by %s, measured÷ceiling %.1f%%", c.Ceiling, bindingWord(c), 100*c.Ratio)
	if p := c.Prediction; p != nil && k.MeasuredCeiling > 0 {
		line += fmt.Sprintf(", %s predicted %.2f req/s at %s (predicted÷measured %.1f%%)", modelWord(p), p.Throughput, k.Load.Label(), 100*p.Throughput/k.MeasuredCeiling)
	}
	return line
}

// bindingWord names the binding resource, or the slot side for an
// exporter without resource series.
func bindingWord(c *comparison.Comparison) string {
	if c.Binding != "" {
		return c.Binding
	}
	return c.Bottleneck + " slots"
}

func modelWord(p *comparison.Prediction) string {
	if p.Model == comparison.ModelMVA {
		return "MVA"
	}
	return "slot formula"
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAILED"
}

// ErrorExampleLines shows the first error of each kind over the run, so a
// wrong port or a failing check is named, not just counted.
func ErrorExampleLines(res *loadgen.Result) []string {
	var out []string
	for _, k := range loadgen.ErrorKinds() {
		if ex, ok := res.Total.ErrorExamples[k.String()]; ok {
			out = append(out, fmt.Sprintf("first %s error: %s", k, ex))
		}
	}
	return out
}
