// Package layers checks the direction of the module's imports: platform →
// topology (pure) → capacity (pure) → collector → HTTP, and loadgen (a
// pure engine) → report. It reads `go list`, so it needs the Go toolchain
// on the PATH, as `go test` has it.
package layers

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/n8n-ceiling/n8n-ceiling/"

type pkg struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
}

// list is `go list -json` of the module's packages, by path below module.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// ours is the module's packages among paths, below module.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

// The pure packages do no I/O: no network, process or file system import
// of their own, nothing outside the standard library but the module's
// other pure pieces.
func TestPurePackagesDoNoIO(t *testing.T) {
	pkgs := list(t)
	io := []string{"net", "net/http", "os", "os/exec", "syscall", "io/ioutil", "database/sql"}
	allowed := map[string][]string{
		"pkg/topology":    {"pkg/brokerprobe/route"},
		"pkg/capacity":    nil,
		"pkg/demand":      {"internal/window"},
		"internal/window": nil,
	}
	for name, may := range allowed {
		p, ok := pkgs[name]
		if !ok {
			t.Fatalf("no package %s", name)
		}
		for _, imp := range p.Imports {
			if slices.Contains(io, imp) {
				t.Errorf("%s imports %s", name, imp)
			}
			if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") && !strings.HasPrefix(imp, module) {
				t.Errorf("%s imports %s, outside the standard library", name, imp)
			}
		}
		for _, dep := range ours(p.Deps) {
			if !slices.Contains(may, dep) {
				t.Errorf("%s depends on %s", name, dep)
			}
		}
	}
}

// Nothing reaches back up the flow: the model knows no collector or
// platform, the engine no report, no library any command or test lab.
func TestImportsFlowOneWay(t *testing.T) {
	never := map[string][]string{
		"pkg/topology": {"pkg/capacity", "pkg/collector", "pkg/dockerstats", "pkg/kube"},
		"pkg/capacity": {"pkg/topology", "pkg/collector", "pkg/dockerstats", "pkg/kube"},
		"pkg/loadgen":  {"pkg/report", "pkg/comparison", "pkg/experiment", "pkg/collector"},
	}
	pkgs := list(t)
	for name, p := range pkgs {
		deps := ours(p.Deps)
		for _, bad := range never[name] {
			if slices.Contains(deps, bad) {
				t.Errorf("%s depends on %s", name, bad)
			}
		}
		if strings.HasPrefix(name, "pkg/") || strings.HasPrefix(name, "internal/") {
			for _, d := range deps {
				if strings.HasPrefix(d, "cmd/") || strings.HasPrefix(d, "e2e") {
					t.Errorf("%s depends on %s", name, d)
				}
			}
		}
	}
}
