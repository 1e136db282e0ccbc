package route

import (
	"strconv"
	"strings"
)

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

// Names reads PROBE_NAME for n routes: a name for each, by position, or,
// when it is empty, probe-1, probe-2, … The probe labels its metrics with
// them.
func Names(value string, n int) ([]string, error) {
	names, err := Split(NameVar, value)
	switch {
	case err != nil:
		return nil, err
	case n == 0 && len(names) > 0:
		return nil, &Error{Var: ListenVar, Reason: "empty, but " + NameVar + " is set"}
	case len(names) == 0:
		for i := range n {
			names = append(names, "probe-"+strconv.Itoa(i+1))
		}
	case len(names) != n:
		return nil, &Error{Var: NameVar, Reason: strconv.Itoa(len(names)) + " entries, but " + ListenVar + " has " + strconv.Itoa(n)}
	}
	return names, nil
}
