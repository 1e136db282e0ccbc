package proccpu

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		mustWriteStat(t, root, pid, line)
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
	got, err := (&BackingReader{Root: root}).Read(time.Now())
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
	b, err := (&BackingReader{Root: before}).Read(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&BackingReader{Root: after}).Read(time.Now())
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
	got, err := (&BackingReader{Root: writeProcTree(t, map[int]string{7: statLine(7, "node", 1, 1, 1, 0, 0)})}).Read(time.Now())
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing and no error", got, err)
	}
	if _, err := (&BackingReader{Root: filepath.Join(t.TempDir(), "absent")}).Read(time.Now()); err == nil {
		t.Error("a missing root was read")
	}
}

// Between full readings a connection that opens is counted at the next
// reading, a PID that was PostgreSQL's and is now something else's drops
// out, and a process found to be something else is not read again until
// Rescan has passed: then a PID it left to PostgreSQL counts.
func TestBackingReaderRescans(t *testing.T) {
	root := writeProcTree(t, map[int]string{
		100: statLine(100, "postgres", 1, 100, 0, 0, 0),
		101: statLine(101, "postgres", 100, 50, 0, 0, 0),
		500: statLine(500, "node", 1, 10, 0, 0, 0),
	})
	r := &BackingReader{Root: root, Rescan: time.Minute}
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	read := func(at time.Duration) float64 {
		t.Helper()
		got, err := r.Read(t0.Add(at))
		if err != nil {
			t.Fatal(err)
		}
		return got[Postgres]
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if got := read(0); !near(got, 1.5) {
		t.Fatalf("first reading %v s, want 1.5", got)
	}
	mustWriteStat(t, root, 102, statLine(102, "postgres", 100, 3, 0, 0, 0))
	mustWriteStat(t, root, 101, statLine(101, "node", 1, 9000, 0, 0, 0))
	mustWriteStat(t, root, 500, statLine(500, "postgres", 100, 7, 0, 0, 0))
	if got := read(time.Second); !near(got, 1.03) {
		t.Errorf("a second later %v s, want 1.03 (102 opened, PID 101 now node's, 500 not read again)", got)
	}
	if got := read(time.Minute); !near(got, 1.1) {
		t.Errorf("after Rescan %v s, want 1.1 (500 read again)", got)
	}
}

func mustWriteStat(t *testing.T, root string, pid int, line string) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkBackingListing reads every process's stat once per op, as a
// BackingReader does every Rescan.
func BenchmarkBackingListing(b *testing.B) {
	benchBacking(b, &BackingReader{Root: "/proc", Rescan: time.Nanosecond})
}

// BenchmarkBackingRead lists /proc's PIDs and reads the backing services'
// stat files, as a BackingReader does once a second between full readings.
func BenchmarkBackingRead(b *testing.B) {
	benchBacking(b, &BackingReader{Root: "/proc", Rescan: time.Hour})
}

func benchBacking(b *testing.B, r *BackingReader) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		b.Skip("no /proc")
	}
	for b.Loop() {
		if _, err := r.Read(time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
