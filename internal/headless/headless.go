// Package headless renders local HTML files in headless Chromium with its
// networking features off, so a page that tried to fetch anything renders
// without it. Tests use it to check the HTML reports.
package headless

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// Binary is the name of Chromium on PATH (Debian package chromium).
const Binary = "chromium"

// DefaultTimeout bounds one Chromium run when Browser.Timeout is zero.
const DefaultTimeout = 90 * time.Second

// Browser is one Chromium binary with a profile directory of its own.
type Browser struct {
	Path          string        // the chromium binary, e.g. from Find
	Profile       string        // a fresh directory for --user-data-dir
	Width, Height int           // window size; zero keeps Chromium's default
	Timeout       time.Duration // per run; zero means DefaultTimeout
}

// Find returns the path of Chromium on PATH.
func Find() (string, error) {
	return exec.LookPath(Binary)
}

// DumpDOM returns the DOM of the HTML file at path after rendering.
func (b Browser) DumpDOM(path string) (string, error) {
	out, err := b.run("--dump-dom", "file://"+path)
	return string(out), err
}

// Screenshot renders the HTML file at path into the PNG file png.
func (b Browser) Screenshot(path, png string) error {
	_, err := b.run("--screenshot="+png, "file://"+path)
	return err
}

// flags turn off everything that would reach the network or keep state.
func (b Browser) flags() []string {
	f := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + b.Profile}
	if b.Width > 0 && b.Height > 0 {
		f = append(f, "--window-size="+strconv.Itoa(b.Width)+","+strconv.Itoa(b.Height))
	}
	return f
}

func (b Browser) run(args ...string) ([]byte, error) {
	timeout := b.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, b.Path, append(b.flags(), args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("chromium %v: %w\n%s", args, err, stderr.String())
	}
	return stdout.Bytes(), nil
}
