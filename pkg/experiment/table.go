package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table writes the per-case table, then every failed check.
func Table(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "experiment %s: %d of %d cases ran\n", r.Spec.Name, len(r.Cases), len(r.Spec.Cases))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(heads(), "\t"))
	for _, c := range r.Cases {
		fmt.Fprintln(tw, strings.Join(c.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range r.FailedChecks() {
		fmt.Fprintf(w, "FAILED %s\n", l)
	}
	verdict := "all checks passed"
	if !r.Passed {
		verdict = "some checks FAILED"
	}
	_, err := fmt.Fprintf(w, "experiment %s: %s\n", r.Spec.Name, verdict)
	return err
}
