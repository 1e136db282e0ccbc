package repeat

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Row is one check across the runs: its figure in each run (NaN where the
// run did not reach it), the lowest and highest, and how many passed.
type Row struct {
	Key    string
	Want   string
	Values []float64
	Low    float64
	High   float64
	Passed int
}

// Rows sets the runs' figures side by side, in the order the checks first
// appear. A check recorded twice in one run (a test that loops over
// settings names each) keeps its last figure.
func Rows(runs []Run) []Row {
	var order []string
	rows := map[string]*Row{}
	passed := map[string][]bool{}
	for i, run := range runs {
		for _, f := range run.Figures {
			r, ok := rows[f.key()]
			if !ok {
				r = &Row{Key: f.key(), Want: f.Want, Values: nanValues(len(runs)), Low: math.Inf(1), High: math.Inf(-1)}
				rows[f.key()], passed[f.key()] = r, make([]bool, len(runs))
				order = append(order, f.key())
			}
			r.Values[i], passed[f.key()][i] = f.Value, f.Passed
		}
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		r := rows[k]
		for i, v := range r.Values {
			if !math.IsNaN(v) {
				r.Low, r.High = math.Min(r.Low, v), math.Max(r.High, v)
			}
			if passed[k][i] {
				r.Passed++
			}
		}
		out = append(out, *r)
	}
	return out
}

func nanValues(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// Write prints the rows as a table; it returns how many checks failed in
// some run or were missing from one.
func Write(w io.Writer, rows []Row, runs int) (bad int, err error) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"check", "want"}
	for i := range runs {
		head = append(head, fmt.Sprintf("run %d", i+1))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "low", "high", "passed"), "\t"))
	for _, r := range rows {
		cells := []string{r.Key, r.Want}
		for _, v := range r.Values {
			cells = append(cells, num(v))
		}
		cells = append(cells, num(r.Low), num(r.High), fmt.Sprintf("%d/%d", r.Passed, runs))
		if r.Passed < runs {
			bad++
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return bad, tw.Flush()
}

func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}
