package hostcpu

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeStat writes a /proc/stat of the given text into a new root.
func writeStat(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "stat"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestRead(t *testing.T) {
	root := writeStat(t, `cpu  56042 10 14445 1773068 853 5 583 1231 7 0
cpu0 27270 5 6829 888152 67 2 205 615 3 0
cpu1 28771 5 7616 884916 786 3 377 615 4 0
intr 1 2 3
ctxt 42
`)
	got, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	busy := float64(56042+10+14445+5+583+1231) / UserHZ
	idle := float64(1773068+853) / UserHZ
	steal := float64(1231) / UserHZ
	if math.Abs(got.Busy-busy) > 1e-9 || math.Abs(got.Idle-idle) > 1e-9 || math.Abs(got.Steal-steal) > 1e-9 || got.Cores != 2 {
		t.Fatalf("got %+v, want busy %v idle %v steal %v cores 2", got, busy, idle, steal)
	}
}

func TestReadRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"not numbers": "cpu a b c d e f g h\ncpu0 1 2 3 4 5 6 7 8\n",
		"no per-cpu":  "cpu 1 2 3 4 5 6 7 8\n",
		"no total":    "cpu0 1 2 3 4 5 6 7 8\n",
	} {
		if _, err := Read(writeStat(t, in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// This machine's own /proc: busy grows, cores match the online CPUs.
func TestReadThisHost(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat")
	}
	a, err := Read("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2e7; i++ { // burn a little CPU so the counter moves
		_ = i * i
	}
	b, err := Read("/proc")
	if err != nil {
		t.Fatal(err)
	}
	// /sys/devices/system/cpu/online reads "0-<last>" when all are online.
	if online, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if first, last, ok := strings.Cut(strings.TrimSpace(string(online)), "-"); ok && first == "0" {
			if n, err := strconv.Atoi(last); err == nil && a.Cores != n+1 {
				t.Fatalf("online %q, cores %d", online, a.Cores)
			}
		}
	}
	if a.Cores < 1 || b.Busy < a.Busy || b.Idle < a.Idle {
		t.Fatalf("readings went backwards or have no cores: %+v then %+v", a, b)
	}
	if _, err := Read(t.TempDir()); err == nil {
		t.Fatal("a root without stat was read")
	}
}
