package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const chromiumPath = "/usr/bin/chromium"

// chromium runs headless Chromium with networking features off, so a
// report that tried to fetch anything would render without it.
func chromium(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1200,1600"}
	cmd := exec.CommandContext(ctx, chromiumPath, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

func TestHTMLRendersInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skip("chromium is not installed (apt-get install -y chromium); CI installs it")
	}
	dir := t.TempDir()
	// LOADCTL_RENDER_HTML names a report written elsewhere (the lab e2e's);
	// without it the report of a local sweep is rendered.
	page := os.Getenv("LOADCTL_RENDER_HTML")
	if page == "" {
		page = filepath.Join(dir, "report.html")
		writeReport(t, page)
	}
	shot := filepath.Join(dir, "report.png")
	chromium(t, dir, "--screenshot="+shot, "file://"+page)
	checkScreenshot(t, shot)
	if keep := os.Getenv("LOADCTL_KEEP_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(keep, data, 0o644)
	}
	dom := string(chromium(t, dir, "--dump-dom", "file://"+page))
	if n := strings.Count(dom, "<svg"); n != 3 {
		t.Errorf("rendered DOM has %d charts, want 3", n)
	}
	if m := externalRef.FindString(dom); m != "" {
		t.Errorf("rendered DOM references %q", m)
	}
	if !strings.Contains(dom, "<polyline") || !strings.Contains(dom, "Passing throughput per step") {
		t.Error("rendered DOM lacks the chart contents")
	}
}

// checkScreenshot wants a full-size PNG with real content: many colours
// and no page that is almost all one colour.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1600 {
		t.Errorf("screenshot %v, want 1200x1600", b)
	}
	colours, nonWhite := paletteStats(img)
	if colours < 20 || nonWhite < 0.02 {
		t.Errorf("screenshot looks empty: %d colours, %.1f%% non-white", colours, 100*nonWhite)
	}
}

func paletteStats(img image.Image) (colours int, nonWhite float64) {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	var dark, total int
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				dark++
			}
			total++
		}
	}
	return len(seen), float64(dark) / float64(total)
}

func writeReport(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := HTML(f, realResult(t)); err != nil {
		t.Fatal(err)
	}
}
