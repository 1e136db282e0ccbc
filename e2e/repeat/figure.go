// Package repeat sets the figures of repeated e2e runs side by side: each
// timing-sensitive check's number in every run, its range, and how many
// runs passed. make e2e-repeat runs the suite N times and prints it.
package repeat

// FiguresFile is the file in a run's directory that holds the Go tests'
// figures, one JSON Figure a line.
const FiguresFile = "figures.jsonl"

// Figure is one check's number in one run.
type Figure struct {
	Test   string  `json:"test"`
	Check  string  `json:"check"`
	Want   string  `json:"want"`
	Value  float64 `json:"value"`
	Passed bool    `json:"passed"`
}

// key names a check across runs.
func (f Figure) key() string { return f.Test + " · " + f.Check }
