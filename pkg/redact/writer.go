package redact

import "io"

// Writer redacts the URLs in each write before passing it on. A print
// through fmt is one write, so a URL it holds arrives whole.
type Writer struct {
	W io.Writer
}

func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
