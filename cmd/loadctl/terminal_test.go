package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// /dev/null is a character device but no terminal, so progress there
// is plain lines, not a redrawn one.
func TestIsTerminalNotDevNull(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, w := range map[string]io.Writer{"/dev/null": null, "redacted /dev/null": redact.Writer{W: null}, "buffer": &bytes.Buffer{}} {
		if isTerminal(w) {
			t.Errorf("%s: taken for a terminal", name)
		}
	}
}

// A pseudo-terminal's follower side is a terminal, redacted or not.
func TestIsTerminalPty(t *testing.T) {
	pts := openPty(t)
	if !isTerminal(pts) || !isTerminal(redact.Writer{W: pts}) {
		t.Fatal("a pty is not taken for a terminal")
	}
}

// openPty opens a new pseudo-terminal and returns its follower side.
func openPty(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return pts
}
