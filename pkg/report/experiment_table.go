package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// ExperimentTable writes an experiment's per-case table, then every
// failed check.
func ExperimentTable(w io.Writer, r *experiment.Result) error {
	fmt.Fprintf(w, "experiment %s: %d of %d cases ran\n", r.Spec.Name, len(r.Cases), len(r.Spec.Cases))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(caseHeads(), "\t"))
	for _, c := range r.Cases {
		fmt.Fprintln(tw, strings.Join(caseCells(c), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range FailedChecks(r) {
		fmt.Fprintf(w, "FAILED %s\n", l)
	}
	verdict := "all checks passed"
	if !r.Passed {
		verdict = "some checks FAILED"
	}
	_, err := fmt.Fprintf(w, "experiment %s: %s\n", r.Spec.Name, verdict)
	return err
}
