package brokerprobe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// prefixLimit bounds how much of a frame the tap reads. Every field the
// state machine needs sits near the front of n8n's messages (type first,
// then ids), while payloads such as task data can be hundreds of MB.
const prefixLimit = 4096

// maxNameLen caps the runner name kept for logs and connection info.
const maxNameLen = 128

var (
	errNotObject = errors.New("frame is not a JSON object")
	errNoType    = errors.New("frame has no string type field")
	errTrailing  = errors.New("data after the JSON object")
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
func parsePrefix(prefix []byte, truncated bool) (frame, error) {
	var f frame
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	err := parseObject(dec, &f, int64(len(prefix)), truncated)
	if truncated && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
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

func parseObject(dec *json.Decoder, f *frame, size int64, truncated bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return errNotObject
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		before := *f
		err = f.decodeField(dec, key)
		if err == nil && truncated && dec.InputOffset() >= size {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			*f = before // a value cut by the prefix limit is not trusted
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailing
	}
	return nil
}

// decodeField decodes the value of key into f, or skips it.
func (f *frame) decodeField(dec *json.Decoder, key string) error {
	switch key {
	case "type":
		return decodeString(dec, &f.Type)
	case "taskId":
		return decodeString(dec, &f.TaskID)
	case "offerId":
		return decodeString(dec, &f.OfferID)
	case "name":
		err := decodeString(dec, &f.Name)
		f.Name = truncate(f.Name, maxNameLen)
		return err
	case "reason":
		return decodeString(dec, &f.Reason)
	case "types":
		var v []string
		err := dec.Decode(&v)
		f.Types = v
		return err
	case "validFor":
		return f.decodeValidFor(dec)
	}
	return skipValue(dec)
}

func (f *frame) decodeValidFor(dec *json.Decoder) error {
	var n json.Number
	if err := dec.Decode(&n); err != nil {
		return err
	}
	v, err := n.Float64()
	if err != nil {
		return err
	}
	f.ValidFor, f.HasValidFor = int64(v), true
	return nil
}

// decodeString decodes into a fresh value, so a repeated key set to null
// clears the field as JSON.parse would.
func decodeString(dec *json.Decoder, dst *string) error {
	var s string
	err := dec.Decode(&s)
	*dst = s
	return err
}

// skipValue consumes one JSON value of any depth.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
