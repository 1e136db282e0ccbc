package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteIndentedJSON writes v as indented JSON: the form of every result
// file loadctl writes (sweep and experiment).
func WriteIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadVersionedJSON decodes a result file of the kind named by what and
// rejects one whose schema (read by schema) is not want.
func ReadVersionedJSON[T any](rd io.Reader, what, want string, schema func(*T) string) (*T, error) {
	var v T
	if err := json.NewDecoder(rd).Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if got := schema(&v); got != want {
		return nil, fmt.Errorf("%s: schema %q, want %q", what, got, want)
	}
	return &v, nil
}
