package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// BuildJSONBody applies `key=value` settings to a JSON object template.
// A value that parses as JSON keeps its type (3000 stays a number, true a
// bool); anything else becomes a string. Dotted keys reach nested objects.
func BuildJSONBody(template string, sets []string) ([]byte, error) {
	obj := map[string]any{}
	if strings.TrimSpace(template) != "" {
		dec := json.NewDecoder(strings.NewReader(template))
		dec.UseNumber() // keep numbers exactly as written
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("body template is not a JSON object: %w", err)
		}
	}
	for _, s := range sets {
		key, val, ok := strings.Cut(s, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("set %q: want key=value", s)
		}
		if err := setPath(obj, strings.Split(key, "."), jsonValue(val)); err != nil {
			return nil, fmt.Errorf("set %q: %w", s, err)
		}
	}
	return json.Marshal(obj)
}

// jsonValue returns raw JSON when v is a JSON literal, else v as a string.
func jsonValue(v string) any {
	if json.Valid([]byte(v)) {
		return json.RawMessage(bytes.TrimSpace([]byte(v)))
	}
	return v
}

func setPath(obj map[string]any, path []string, v any) error {
	for _, k := range path[:len(path)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			if _, exists := obj[k]; exists {
				return fmt.Errorf("%q is not an object", k)
			}
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
	return nil
}
