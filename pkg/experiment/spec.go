package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is one experiment: a target, a load, an apply hook and the cases.
type Spec struct {
	Name        string            `yaml:"name" json:"name"`
	Description string            `yaml:"description" json:"description,omitempty"`
	Seed        *Seed             `yaml:"seed" json:"seed,omitempty"`
	Apply       Apply             `yaml:"apply" json:"apply"`
	Target      Target            `yaml:"target" json:"target"`
	Load        Load              `yaml:"load" json:"load"`
	Settle      Settle            `yaml:"settle" json:"settle"`
	SampleEvery Duration          `yaml:"sample_every" json:"sample_every"`
	Cases       []Case            `yaml:"cases" json:"cases"`
	Env         map[string]string `yaml:"env" json:"-"` // base env for every case; recorded redacted per case
}

// Seed holds the article's figures, quoted, and where they come from.
// Columns order the per-case seed figures in the summary.
type Seed struct {
	Source  string   `yaml:"source" json:"source"`
	Note    string   `yaml:"note" json:"note,omitempty"`
	Columns []string `yaml:"columns" json:"columns"`
}

// Apply names the hook that puts a case's setting in place. Kind
// "command" (the default) runs Command with the case env, and reads the
// endpoint lines it prints (pkg/endpoints); "none" applies nothing.
type Apply struct {
	Kind    string   `yaml:"kind" json:"kind"`
	Command []string `yaml:"command" json:"command,omitempty"`
	Timeout Duration `yaml:"timeout" json:"timeout"`
}

// Target says what each request sends. Empty URLs and Exporter come from
// the endpoints the apply hook printed (webhook, exporter-metrics);
// Paths replace the webhook URL's path, for several webhooks round-robin.
type Target struct {
	URLs         []string       `yaml:"urls" json:"urls,omitempty"`
	Paths        []string       `yaml:"paths" json:"paths,omitempty"`
	Exporter     string         `yaml:"exporter" json:"exporter,omitempty"`
	Method       string         `yaml:"method" json:"method,omitempty"`
	Body         map[string]any `yaml:"body" json:"body,omitempty"`
	Upload       string         `yaml:"upload" json:"upload,omitempty"`
	UploadMode   string         `yaml:"upload_mode" json:"upload_mode,omitempty"`
	Timeout      Duration       `yaml:"timeout" json:"timeout"`
	ExpectStatus []int          `yaml:"expect_status" json:"expect_status,omitempty"`
	Checks       []string       `yaml:"checks" json:"checks,omitempty"`
}

// Load is the stepped load of one case.
type Load struct {
	Model       string    `yaml:"model" json:"model"`
	VUs         []int     `yaml:"vus" json:"vus,omitempty"`
	Rates       []float64 `yaml:"rates" json:"rates,omitempty"`
	Step        Duration  `yaml:"step" json:"step"`
	Warmup      Duration  `yaml:"warmup" json:"warmup"`
	MaxInFlight int       `yaml:"max_in_flight" json:"max_in_flight,omitempty"`
}

// Settle bounds the wait for the exporter to report a case's shape.
type Settle struct {
	Timeout Duration `yaml:"timeout" json:"timeout"`
	Poll    Duration `yaml:"poll" json:"poll"`
}

// Case is one setting to apply and measure. Target and Load fields that
// are set replace the experiment's.
type Case struct {
	Name   string            `yaml:"name" json:"name"`
	Group  string            `yaml:"group" json:"group,omitempty"`
	Env    map[string]string `yaml:"env" json:"-"`
	Wait   Shape             `yaml:"wait" json:"wait"`
	Target *Target           `yaml:"target" json:"target,omitempty"`
	Load   *Load             `yaml:"load" json:"load,omitempty"`
	Expect Expect            `yaml:"expect" json:"expect"`
	Seed   map[string]string `yaml:"seed" json:"seed,omitempty"`
}

// Shape is what the exporter must report before the load starts. Unset
// fields are not waited for.
type Shape struct {
	RunnerLimits         []int `yaml:"runner_limits" json:"runner_limits,omitempty"`
	WorkerConcurrency    []int `yaml:"worker_concurrency" json:"worker_concurrency,omitempty"`
	Workers              *int  `yaml:"workers" json:"workers,omitempty"`
	WorkersWithoutRunner *int  `yaml:"workers_without_runner" json:"workers_without_runner,omitempty"`
}

// Duration reads "15s"-style strings in YAML and JSON specs.
type Duration time.Duration

// UnmarshalYAML reads a Go duration string, e.g. 40s or 1m30s.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: duration %q: want e.g. 15s or 2m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as Go prints it, e.g. 40s.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// maxSpecBytes keeps a wrong --spec path (a log, a binary) from being read
// whole.
const maxSpecBytes = 1 << 20

// LoadFile reads and validates a spec (YAML, or JSON, which YAML reads).
func LoadFile(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Parse(io.LimitReader(f, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse reads a spec, rejects unknown fields, fills defaults and validates.
func Parse(r io.Reader) (*Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data) > maxSpecBytes {
		return nil, fmt.Errorf("spec is larger than %d bytes", maxSpecBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("spec is empty")
		}
		return nil, fmt.Errorf("spec: %w", err)
	}
	s.defaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// UnmarshalText reads a duration from JSON results.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// OnlyCases keeps the named cases, in the spec's order; a name the spec
// does not have is an error that lists the ones it has.
func (s *Spec) OnlyCases(names []string) error {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var kept []Case
	var have []string
	for _, c := range s.Cases {
		have = append(have, c.Name)
		if want[c.Name] {
			kept = append(kept, c)
			delete(want, c.Name)
		}
	}
	for n := range want {
		return fmt.Errorf("spec %s has no case %q (it has %v)", s.Name, n, have)
	}
	s.Cases = kept
	return nil
}
