package report

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/headless"
	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

// browser is headless Chromium with a profile in dir and the screenshot
// size checkScreenshot wants.
func browser(t *testing.T, dir string) headless.Browser {
	t.Helper()
	return headless.Browser{Path: testtool.Require(t, headless.Binary, "chromium"),
		Profile: filepath.Join(dir, "profile"), Width: 1200, Height: 1600}
}

func TestHTMLRendersInChromium(t *testing.T) {
	dir := t.TempDir()
	b := browser(t, dir)
	// LOADCTL_RENDER_HTML names a report written elsewhere (the lab e2e's);
	// without it the report of a local sweep is rendered.
	page := os.Getenv("LOADCTL_RENDER_HTML")
	if page == "" {
		page = filepath.Join(dir, "report.html")
		writeReport(t, page)
	}
	shot := filepath.Join(dir, "report.png")
	if err := b.Screenshot(page, shot); err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, shot)
	if keep := os.Getenv("LOADCTL_KEEP_SCREENSHOT"); keep != "" {
		if data, err := os.ReadFile(shot); err != nil || os.WriteFile(keep, data, 0o644) != nil {
			t.Errorf("LOADCTL_KEEP_SCREENSHOT: could not copy %s to %s", shot, keep)
		}
	}
	checkDOM(t, b, page, 3, "<polyline", "Passing throughput per step")
}

// checkDOM renders page and wants that many charts, each of wants, and
// nothing a browser would fetch.
func checkDOM(t *testing.T, b headless.Browser, page string, charts int, wants ...string) {
	t.Helper()
	dom, err := b.DumpDOM(page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<svg"); n != charts {
		t.Errorf("rendered DOM has %d charts, want %d", n, charts)
	}
	if m := externalRef.FindString(dom); m != "" {
		t.Errorf("rendered DOM references %q", m)
	}
	for _, w := range wants {
		if !strings.Contains(dom, w) {
			t.Errorf("rendered DOM lacks %q", w)
		}
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
