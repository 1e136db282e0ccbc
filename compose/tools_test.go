package compose

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// run runs a command in dir and returns its combined output; it fails the
// test with that output on a non-zero exit.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := command(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func command(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// minimalEnv keeps only what a tool needs to run, so secrets set in the
// test's own environment cannot satisfy the compose file by accident.
func minimalEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}
