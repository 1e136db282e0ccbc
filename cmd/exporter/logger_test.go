package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// The level and format come from EXPORTER_LOG_LEVEL and
// EXPORTER_LOG_FORMAT, or from promslog's --log.level and --log.format.
func TestLoggerLevelAndFormat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		environ []string
		json    bool
	}{
		{"env", nil, []string{"EXPORTER_LOG_LEVEL=warn"}, true},
		{"flags", []string{"--log.level=warn", "--log.format", "logfmt"}, []string{"EXPORTER_LOG_LEVEL=debug"}, false},
		{"env format", nil, []string{"EXPORTER_LOG_LEVEL=warn", "EXPORTER_LOG_FORMAT=logfmt"}, false},
	} {
		cfg, err := parseConfig(tc.args, tc.environ, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var out bytes.Buffer
		logger := cfg.newLogger(&out)
		logger.Info("hidden")
		logger.Warn("shown", "k", "v")
		line := out.String()
		if strings.Contains(line, "hidden") || !strings.Contains(line, "shown") || strings.Count(line, "\n") != 1 {
			t.Errorf("%s: info not filtered at warn: %q", tc.name, line)
		}
		var rec map[string]any
		if isJSON := json.Unmarshal(out.Bytes(), &rec) == nil; isJSON != tc.json {
			t.Errorf("%s: JSON %v, want %v: %q", tc.name, isJSON, tc.json, line)
		}
		if !tc.json && !strings.Contains(line, "level=WARN") {
			t.Errorf("%s: not logfmt: %q", tc.name, line)
		}
	}
	for _, kv := range []string{"EXPORTER_LOG_FORMAT=xml", "EXPORTER_LOG_LEVEL=loud"} {
		name, _, _ := strings.Cut(kv, "=")
		if _, err := parseConfig(nil, []string{kv}, io.Discard); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming %s", kv, err, name)
		}
	}
}
