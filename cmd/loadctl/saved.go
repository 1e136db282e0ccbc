package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// readSaved reads a saved result with the URLs in every string redacted,
// so that a file written before loadctl redacted them cannot leak
// through a re-report.
func readSaved[T any](path string, read func(io.Reader) (*T, error)) (*T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	clean, err := redact.JSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res, err := read(bytes.NewReader(clean))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
