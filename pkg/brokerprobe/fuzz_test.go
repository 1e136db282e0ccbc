package brokerprobe

import (
	"encoding/json"
	"testing"
)

// FuzzParsePrefix checks the prefix parser never panics and agrees with
// encoding/json on complete frames: it accepts only valid JSON, and then
// reports the same type. Seeds live in testdata/fuzz/FuzzParsePrefix and
// follow BRIEF section 2's message shapes.
func FuzzParsePrefix(f *testing.F) {
	f.Add([]byte(`{"type":"runner:taskoffer","taskType":"javascript","offerId":"o","validFor":5000}`), false)
	f.Fuzz(func(t *testing.T, data []byte, truncated bool) {
		if len(data) > prefixLimit {
			data = data[:prefixLimit]
		}
		fr, err := parsePrefix(data, truncated)
		if err != nil {
			if fr.Type != "" {
				t.Fatalf("error %v with type %q", err, fr.Type)
			}
			return
		}
		if fr.Type == "" || len(fr.Name) > maxNameLen {
			t.Fatalf("accepted frame %+v", fr)
		}
		if truncated {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("parser accepted invalid JSON %q: %v", data, err)
		}
		var typ string
		if err := json.Unmarshal(m["type"], &typ); err != nil || typ != fr.Type {
			t.Fatalf("type %q, encoding/json says %q (%v)", fr.Type, typ, err)
		}
	})
}
