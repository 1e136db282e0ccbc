package repeat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
)

// Run is what one run's directory holds: every figure, the Go tests' and
// the experiments' numeric checks alike.
type Run struct {
	Dir     string
	Figures []Figure
}

// ReadRun reads a run directory: FiguresFile, and every experiment result
// (*.json) beside it.
func ReadRun(dir string) (Run, error) {
	r := Run{Dir: dir}
	figs, err := readFigures(filepath.Join(dir, FiguresFile))
	if err != nil {
		return r, err
	}
	r.Figures = figs
	results, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return r, err
	}
	sort.Strings(results)
	for _, path := range results {
		figs, err := experimentFigures(path)
		if err != nil {
			return r, err
		}
		r.Figures = append(r.Figures, figs...)
	}
	return r, nil
}

func readFigures(path string) ([]Figure, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Figure
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var fig Figure
		if err := json.Unmarshal(sc.Bytes(), &fig); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		out = append(out, fig)
	}
	return out, sc.Err()
}

// experimentFigures turns a loadctl experiment result into figures, one
// per numeric check, named "experiment <spec>/<case>".
func experimentFigures(path string) ([]Figure, error) {
	res, err := experiment.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := "experiment"
	if res.Spec != nil {
		name += " " + res.Spec.Name
	}
	var out []Figure
	for _, c := range res.Cases {
		for _, ch := range c.Checks {
			if ch.Figure != nil {
				out = append(out, Figure{Test: name + "/" + c.Name, Check: ch.Name, Want: ch.Want, Value: *ch.Figure, Passed: ch.Passed})
			}
		}
	}
	return out, nil
}
