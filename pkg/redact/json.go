package redact

import (
	"bytes"
	"encoding/json"
)

// JSON redacts the URLs in every string value of a JSON document, for
// a saved result read back from a file that may predate redaction.
// Numbers keep their text; object keys are left alone; the key order
// of the output may differ from the input's.
func JSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(walk(v))
}

func walk(v any) any {
	switch x := v.(type) {
	case string:
		return Text(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = walk(x[k])
		}
	}
	return v
}
