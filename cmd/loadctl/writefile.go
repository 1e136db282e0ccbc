package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// outputMode is every output file's mode: reports are meant to be read
// and shared, and they hold no secret (pkg/redact).
const outputMode = 0o644

// writeFile is the one way loadctl writes an output. write renders into
// a temporary file in path's directory, which is flushed, fsynced and
// renamed over path; the directory is then fsynced too. A failed render
// or write leaves the old file as it was and removes the temporary one,
// and a reader never sees a half-written file.
func writeFile(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := errors.Join(bw.Flush(), tmp.Chmod(outputMode), tmp.Sync()); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: some file
// systems cannot fsync a directory, and the file itself is already
// synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
