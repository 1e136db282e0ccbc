package proccpu

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// statLine is a stat file's 52 fields with the given comm, parent and
// utime, stime, cutime and cstime in ticks.
func statLine(pid int, comm string, ppid, utime, stime, cutime, cstime int) string {
	return fmt.Sprintf("%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %d %d %d %d 20 0 1 0 5000 1000000 100 "+
		"18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n",
		pid, comm, ppid, pid, pid, utime, stime, cutime, cstime)
}

func writeProcTree(t *testing.T, stats map[int]string) string {
	t.Helper()
	root := t.TempDir()
	for pid, line := range stats {
		dir := filepath.Join(root, fmt.Sprint(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The postmaster's own time and its ended connections' (cutime + cstime)
// count, and each live connection's own time; a connection's ended
// children do not count twice, nor does anything that is not PostgreSQL,
// Redis or Valkey.
func TestReadBacking(t *testing.T) {
	root := writeProcTree(t, map[int]string{
		1:   statLine(1, "systemd", 0, 500, 500, 9000, 9000),
		100: statLine(100, "postgres", 1, 100, 50, 30, 20),
		101: statLine(101, "postgres", 100, 10, 5, 7, 3),
		102: statLine(102, "postgres", 100, 20, 0, 0, 0),
		200: statLine(200, "redis-server", 1, 40, 10, 0, 0),
		300: statLine(300, "valkey-server", 1, 5, 5, 0, 0),
		400: statLine(400, "node", 1, 9000, 900, 0, 0),
	})
	got, err := ReadBacking(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{Postgres: (100 + 50 + 30 + 20 + 10 + 5 + 20) / 100.0, Redis: (40 + 10 + 5 + 5) / 100.0}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%s: %v s, want %v s", k, got[k], w)
		}
	}
}

// A connection that ends moves its time into the postmaster's cutime and
// cstime: the sum stays where it was.
func TestReadBackingKeepsEndedConnections(t *testing.T) {
	before := writeProcTree(t, map[int]string{
		100: statLine(100, "postgres", 1, 100, 50, 0, 0),
		101: statLine(101, "postgres", 100, 60, 40, 0, 0),
	})
	after := writeProcTree(t, map[int]string{
		100: statLine(100, "postgres", 1, 100, 50, 60, 40),
	})
	b, err := ReadBacking(before)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ReadBacking(after)
	if err != nil {
		t.Fatal(err)
	}
	if b[Postgres] != 2.5 || a[Postgres] != 2.5 {
		t.Errorf("PostgreSQL before %v s, after the connection ended %v s; want 2.5 both", b[Postgres], a[Postgres])
	}
}

// No service on the host is an empty reading, not an error; a root that
// is not there is an error.
func TestReadBackingNone(t *testing.T) {
	got, err := ReadBacking(writeProcTree(t, map[int]string{7: statLine(7, "node", 1, 1, 1, 0, 0)}))
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing and no error", got, err)
	}
	if _, err := ReadBacking(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("a missing root was read")
	}
}
