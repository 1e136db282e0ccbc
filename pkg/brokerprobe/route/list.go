package route

import "strings"

// Split splits variable's comma list and trims blanks around entries. An
// empty or all-blank value has no entries. An empty entry (",," or a
// trailing comma) is an error: it would shift the lists paired by position.
func Split(variable, value string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	parts := strings.Split(value, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if parts[i] == "" {
			return nil, &Error{Var: variable, Entry: i + 1, Reason: "empty"}
		}
	}
	return parts, nil
}
