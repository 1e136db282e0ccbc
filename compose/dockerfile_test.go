package compose

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func dockerfile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The final stage runs as a numeric non-root user (Kubernetes and Docker
// can then verify runAsNonRoot), after a separate build stage.
func TestDockerfileMultiStageNonRoot(t *testing.T) {
	df := dockerfile(t)
	if n := len(regexp.MustCompile(`(?m)^FROM `).FindAllString(df, -1)); n < 2 {
		t.Errorf("%d FROM lines: want a multi-stage build", n)
	}
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(users) == 0 {
		t.Fatal("no USER line: the exporter would run as root")
	}
	last := users[len(users)-1][1]
	if uid, _, _ := strings.Cut(last, ":"); uid == "root" || uid == "0" || !regexp.MustCompile(`^\d+$`).MatchString(uid) {
		t.Errorf("USER %s: want a numeric non-root uid", last)
	}
}

// The Dockerfile's build command gives a static binary: no ELF interpreter,
// so it runs on a base image without libc.
func TestDockerfileBuildIsStatic(t *testing.T) {
	line := regexp.MustCompile(`(?m)^RUN (CGO_ENABLED=0 go build .*)$`).FindStringSubmatch(dockerfile(t))
	if line == nil {
		t.Fatal("no `RUN CGO_ENABLED=0 go build` line in the Dockerfile")
	}
	// Run the line as the build stage would, writing to a temp dir instead.
	out := regexp.MustCompile(`-o\s+\S+`).FindString(line[1])
	if out == "" {
		t.Fatal("the go build line has no -o")
	}
	bin := filepath.Join(t.TempDir(), "exporter")
	cmd := exec.Command("sh", "-c", strings.Replace(line[1], out, "-o "+bin, 1))
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line[1], err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the exporter binary has an ELF interpreter: it is dynamically linked")
		}
	}
}
