package brokerprobe

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParsePrefix checks the prefix scanner never panics and, on complete
// frames, agrees with encoding/json both ways: it accepts exactly the
// frames encoding/json decodes into the wanted fields, with the same
// values. Seeds live in testdata/fuzz/FuzzParsePrefix and follow the
// message shapes of n8n 2.23.2's task runner protocol.
func FuzzParsePrefix(f *testing.F) {
	f.Add([]byte(`{"type":"runner:taskoffer","taskType":"javascript","offerId":"o","validFor":5000}`), false)
	f.Fuzz(func(t *testing.T, data []byte, truncated bool) {
		if len(data) > prefixLimit {
			data = data[:prefixLimit]
		}
		got, err := parsePrefix(data, truncated)
		if err != nil && !reflect.DeepEqual(got, frame{}) {
			t.Fatalf("error %v with fields %+v", err, got)
		}
		if err == nil && (got.Type == "" || len(got.Name) > maxNameLen || len(got.TaskID) > maxIDLen || len(got.OfferID) > maxIDLen) {
			t.Fatalf("accepted frame %+v", got)
		}
		if truncated {
			return
		}
		want, ok := referenceParse(data)
		if ok != (err == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: scanner %+v, %v; encoding/json %+v, ok %v", data, got, err, want, ok)
		}
	})
}

// referenceParse is the slow, obviously right version built on
// encoding/json, with the same rules: an object with a non-empty string
// type, wanted fields of the right JSON type, ids within maxIDLen bytes,
// last duplicate wins.
func referenceParse(data []byte) (frame, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return frame{}, false
	}
	var f frame
	strs := map[string]*string{"type": &f.Type, "taskId": &f.TaskID, "offerId": &f.OfferID, "name": &f.Name, "reason": &f.Reason}
	for k, dst := range strs {
		if raw, ok := m[k]; ok && json.Unmarshal(raw, dst) != nil {
			return frame{}, false
		}
	}
	if raw, ok := m["types"]; ok && json.Unmarshal(raw, &f.Types) != nil {
		return frame{}, false
	}
	if raw, ok := m["validFor"]; ok {
		var v float64
		if raw[0] == 'n' || json.Unmarshal(raw, &v) != nil {
			return frame{}, false
		}
		f.ValidFor, f.HasValidFor = int64(v), true
	}
	f.Name = truncate(f.Name, maxNameLen)
	if f.Type == "" || len(f.TaskID) > maxIDLen || len(f.OfferID) > maxIDLen {
		return frame{}, false
	}
	return f, true
}
