package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

var httpClient = &http.Client{Timeout: 3 * time.Minute}

// dockerStatsBytes is the memory `docker stats --no-stream` shows for a
// container: the reference the exporter's working set must match.
func dockerStatsBytes(t *testing.T, name string) float64 {
	t.Helper()
	out := strings.TrimSpace(string(docker(t, "stats", "--no-stream", "--format", "{{.MemUsage}}", name)))
	used, _, _ := strings.Cut(out, " / ")
	v, err := parseDockerSize(used)
	if err != nil {
		t.Fatalf("docker stats %s: %q: %v", name, out, err)
	}
	return v
}

// parseDockerSize reads docker's binary-unit sizes such as "1.2GiB".
func parseDockerSize(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			return v * u.mult, err
		}
	}
	return strconv.ParseFloat(s, 64)
}

func TestParseDockerSize(t *testing.T) {
	for in, want := range map[string]float64{"1.5GiB": 1.5 * (1 << 30), "300MiB": 300 << 20, "12B": 12, "2KiB": 2048} {
		if got, err := parseDockerSize(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
}
