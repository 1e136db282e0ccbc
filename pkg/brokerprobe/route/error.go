package route

import (
	"errors"
	"strconv"
)

// Error is a bad setting: the variable, the entry's position (0 for a
// single value) and why. It never holds the value.
type Error struct {
	Var    string
	Entry  int
	Reason string
}

func (e *Error) Error() string {
	s := e.Var
	if e.Entry > 0 {
		s += " entry " + strconv.Itoa(e.Entry)
	}
	return s + ": " + e.Reason
}

// reason is a parse failure not yet tied to a variable.
type reason string

func (r reason) Error() string { return string(r) }

// Named ties a failure from ParseListen, ParseUpstream or ParseURL to
// variable and, when entry > 0, to that position in its list.
func Named(err error, variable string, entry int) error {
	var r reason
	if errors.As(err, &r) {
		return &Error{Var: variable, Entry: entry, Reason: string(r)}
	}
	return err
}
