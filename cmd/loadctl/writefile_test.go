package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// onlyFile fails unless dir holds exactly the named file: no temporary
// file may be left behind.
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != name {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s", names, name)
	}
}

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(got) != "new" || st.Mode().Perm() != outputMode {
		t.Errorf("content %q mode %v err %v", got, st.Mode().Perm(), err)
	}
	onlyFile(t, dir, "r.json")
}

// A renderer that fails half-way, or a rename that cannot happen, leaves
// the old file intact and no temporary file behind.
func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	old := bytes.Repeat([]byte("old report\n"), 1000)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("render failed")
	err := writeFile(path, func(w io.Writer) error {
		_, _ = w.Write(bytes.Repeat([]byte("x"), 64<<10)) // past the buffer: bytes reach the temporary file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want the renderer's", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Errorf("old file changed to %d bytes", len(got))
	}
	onlyFile(t, dir, "r.html")

	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "taken", "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(sub, "taken"), func(io.Writer) error { return nil }); err == nil {
		t.Error("renaming over a non-empty directory succeeded")
	}
	onlyFile(t, sub, "taken")
	if err := writeFile(filepath.Join(dir, "missing", "r.csv"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// Every output flag goes through writeFile: an unwritable --report exits
// 1 naming the flag and leaves the --out written beside it intact.
func TestSweepUnwritableOutputExits1(t *testing.T) {
	_, srv := newCapture(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	code := run(sweepArgs(srv.URL, "--vus", "1", "--step", "100ms", "--out", out, "--report", filepath.Join(dir, "nope", "r.html")), &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "--report") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	onlyFile(t, dir, "r.json")
}
