package dockertest

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/docker/docker/api/types/container"
)

// Inspect loads a captured inspect response from path.
func Inspect(t testing.TB, path string) container.InspectResponse {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var in container.InspectResponse
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}
