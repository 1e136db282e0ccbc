package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

func TestRendersALocalPage(t *testing.T) {
	dir := t.TempDir()
	b := Browser{Path: testtool.Require(t, Binary, "chromium"), Profile: filepath.Join(dir, "profile"), Width: 400, Height: 300}
	page := filepath.Join(dir, "page.html")
	html := `<!doctype html><html><body><p id="x">rendered</p><script>document.getElementById("x").textContent += " by script"</script></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err := b.DumpDOM(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dom, "rendered by script") {
		t.Errorf("DOM was not rendered:\n%s", dom)
	}
	shot := filepath.Join(dir, "shot.png")
	if err := b.Screenshot(page, shot); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("screenshot %v %v", st, err)
	}
}

func TestMissingBinaryIsAnError(t *testing.T) {
	b := Browser{Path: filepath.Join(t.TempDir(), "no-chromium"), Profile: t.TempDir()}
	if _, err := b.DumpDOM("/nonexistent.html"); err == nil {
		t.Error("no error from a missing binary")
	}
}
