package lab

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckPrivate checks that the lab's secret-bearing files under state are
// readable by their owner alone: secrets.env and every run/env/*.env mode
// 0600, the run/env directory 0700. The error names each file and its mode.
func CheckPrivate(state string) error {
	var errs []error
	want := func(path string, mode fs.FileMode) {
		st, err := os.Stat(path)
		switch {
		case err != nil:
			errs = append(errs, err)
		case st.Mode().Perm() != mode:
			errs = append(errs, fmt.Errorf("%s: mode %04o, want %04o", path, st.Mode().Perm(), mode))
		}
	}
	want(filepath.Join(state, "secrets.env"), 0o600)
	envDir := filepath.Join(state, "run", "env")
	want(envDir, 0o700)
	files, err := filepath.Glob(filepath.Join(envDir, "*.env"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		errs = append(errs, fmt.Errorf("%s: no env files", envDir))
	}
	for _, f := range files {
		want(f, 0o600)
	}
	return errors.Join(errs...)
}
