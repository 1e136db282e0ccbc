package brokerprobe

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// prefixLimit bounds how much of a frame the tap reads. Every field the
// state machine needs sits near the front of n8n's messages (type first,
// then ids), while payloads such as task data can be hundreds of MB.
const prefixLimit = 4096

// maxNameLen caps the runner name kept for logs and connection info.
const maxNameLen = 128

// maxIDLen caps a taskId or offerId. n8n's ids are 21-character nanoids;
// a longer id makes the frame a parse error, so a peer cannot make the
// state machine hold large keys.
const maxIDLen = 128

var (
	errCut       = errors.New("frame ends inside a JSON value")
	errSyntax    = errors.New("invalid JSON")
	errNotObject = errors.New("frame is not a JSON object")
	errNoType    = errors.New("frame has no string type field")
	errTrailing  = errors.New("data after the JSON object")
	errFieldType = errors.New("field has the wrong JSON type")
	errIDTooLong = errors.New("taskId or offerId longer than the cap")
)

// frame holds the top-level fields of one task-runner message that the
// state machine reads. Absent fields stay zero.
type frame struct {
	Type        string
	TaskID      string
	OfferID     string
	ValidFor    int64
	HasValidFor bool
	Name        string
	Types       []string
	Reason      string
}

// parsePrefix reads the top-level fields of a JSON object from prefix.
// truncated says prefix is only the start of a longer frame: running out of
// input is then expected, and a value that touches the cut is ignored
// because it may be incomplete (a number like 50 cut from 5000).
//
// It is a small hand-written scanner rather than encoding/json because it
// runs on every relayed message: it validates the JSON grammar but only
// decodes the few fields it needs. FuzzParsePrefix checks it against
// encoding/json.
func parsePrefix(prefix []byte, truncated bool) (frame, error) {
	var f frame
	s := scanner{b: prefix}
	err := s.object(&f, truncated)
	if err == errCut && truncated {
		err = nil
	}
	if err == nil && f.Type == "" {
		err = errNoType
	}
	if err != nil {
		return frame{}, err
	}
	return f, nil
}

// scanner walks a JSON text in b from position i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or errCut at the end.
func (s *scanner) peek() (byte, error) {
	s.skipSpace()
	if s.i >= len(s.b) {
		return 0, errCut
	}
	return s.b[s.i], nil
}

// object scans the top-level object, decoding wanted members into f.
func (s *scanner) object(f *frame, truncated bool) error {
	if c, err := s.peek(); err != nil || c != '{' {
		if err != nil {
			return err
		}
		return errNotObject
	}
	if err := s.list('}', func() error { return s.member(f, truncated) }); err != nil {
		return err
	}
	return s.end()
}

// member scans `"key": value` and decodes the value if f wants the key.
func (s *scanner) member(f *frame, truncated bool) error {
	key, err := s.key()
	if err != nil {
		return err
	}
	raw, err := s.value()
	if err != nil {
		return err
	}
	if truncated && s.i >= len(s.b) {
		return errCut // a value touching the cut may be incomplete
	}
	return f.set(unquote(key), raw)
}

// end checks nothing but space follows the object.
func (s *scanner) end() error {
	s.skipSpace()
	if s.i != len(s.b) {
		return errTrailing
	}
	return nil
}

// value scans one JSON value and returns its raw bytes.
func (s *scanner) value() ([]byte, error) {
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	start := s.i
	switch {
	case c == '"':
		err = s.str()
	case c == '{':
		err = s.list('}', func() error { return s.skipMember() })
	case c == '[':
		err = s.list(']', func() error { _, err := s.value(); return err })
	case c == '-' || c >= '0' && c <= '9':
		err = s.number()
	case c == 't':
		err = s.literal("true")
	case c == 'f':
		err = s.literal("false")
	case c == 'n':
		err = s.literal("null")
	default:
		err = errSyntax
	}
	return s.b[start:s.i], err
}

// list scans the items of an object or array from its opening bracket to
// closer, calling item for each.
func (s *scanner) list(closer byte, item func() error) error {
	s.i++ // the opening bracket
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c == closer && first {
			s.i++
			return nil
		}
		if err := item(); err != nil {
			return err
		}
		if c, err = s.peek(); err != nil {
			return err
		}
		s.i++
		if c == closer {
			return nil
		}
		if c != ',' {
			return errSyntax
		}
	}
}

// key scans `"key":` and returns the raw quoted key.
func (s *scanner) key() ([]byte, error) {
	c, err := s.peek()
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, errSyntax
	}
	start := s.i
	if err := s.str(); err != nil {
		return nil, err
	}
	raw := s.b[start:s.i]
	if c, err = s.peek(); err != nil {
		return nil, err
	}
	if c != ':' {
		return nil, errSyntax
	}
	s.i++
	return raw, nil
}

// skipMember scans a member of a nested object without decoding it.
func (s *scanner) skipMember() error {
	if _, err := s.key(); err != nil {
		return err
	}
	_, err := s.value()
	return err
}

// str scans a string, checking escapes and control characters.
func (s *scanner) str() error {
	s.i++ // opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if err := s.escape(); err != nil {
				return err
			}
		case c < 0x20:
			return errSyntax
		default:
			s.i++
		}
	}
	return errCut
}

func (s *scanner) escape() error {
	if s.i+1 >= len(s.b) {
		return errCut
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return nil
	case 'u':
		s.i += 2
		for range 4 {
			if s.i >= len(s.b) {
				return errCut
			}
			if !isHex(s.b[s.i]) {
				return errSyntax
			}
			s.i++
		}
		return nil
	}
	return errSyntax
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		return errCut
	}
	if s.b[s.i] == '0' {
		s.i++
	} else if err := s.digits(); err != nil {
		return err
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if err := s.digits(); err != nil {
			return err
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		return s.digits()
	}
	return nil
}

// digits scans one or more decimal digits.
func (s *scanner) digits() error {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == start {
		if s.i >= len(s.b) {
			return errCut
		}
		return errSyntax
	}
	return nil
}

func (s *scanner) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if s.i >= len(s.b) {
			return errCut
		}
		if s.b[s.i] != word[k] {
			return errSyntax
		}
		s.i++
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// set decodes raw into the field named key; other keys are ignored.
func (f *frame) set(key string, raw []byte) error {
	var err error
	switch key {
	case "type":
		f.Type, err = stringValue(raw)
	case "taskId":
		f.TaskID, err = idValue(raw)
	case "offerId":
		f.OfferID, err = idValue(raw)
	case "reason":
		f.Reason, err = stringValue(raw)
	case "name":
		f.Name, err = stringValue(raw)
		f.Name = truncate(f.Name, maxNameLen)
	case "types":
		f.Types = nil
		err = json.Unmarshal(raw, &f.Types)
	case "validFor":
		var v float64
		v, err = strconv.ParseFloat(string(raw), 64)
		f.ValidFor, f.HasValidFor = int64(v), err == nil
	}
	return err
}

// stringValue decodes a JSON string; null gives "" as in encoding/json.
func stringValue(raw []byte) (string, error) {
	switch raw[0] {
	case '"':
		return unquote(raw), nil
	case 'n':
		return "", nil
	}
	return "", errFieldType
}

// idValue decodes a string id of at most maxIDLen bytes.
func idValue(raw []byte) (string, error) {
	s, err := stringValue(raw)
	if err == nil && len(s) > maxIDLen {
		return "", errIDTooLong
	}
	return s, err
}

// unquote decodes a scanned JSON string, taking the fast path when it has
// no escapes and is valid UTF-8.
func unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if utf8.Valid(inner) && !containsByte(inner, '\\') {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(raw, &s) // raw was validated by str
	return s
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
