package proccpu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

const fixtureRoot = "testdata/proc-fixture"

// The fixture worker container: tini and n8n are the n8n process, the
// task runner is the runner; CPU time is utime + stime without the
// children's; a PID gone since cgroup.procs was read is left out.
func TestReadFixture(t *testing.T) {
	got, err := Reader{Root: fixtureRoot}.Read([]int{1, 7, 45, 99})
	if err != nil {
		t.Fatal(err)
	}
	want := []Proc{
		{PID: 1, Start: 5012, Runner: false, Seconds: 0.01, Thread: 0.01, HasWait: true},
		{PID: 7, Start: 5120, Runner: false, Seconds: 130.23, Thread: 126, Wait: 31.5, HasWait: true},
		{PID: 45, Start: 9873, Runner: true, Seconds: 46.2, Thread: 44, Wait: 2.2, HasWait: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.PID != w.PID || g.Start != w.Start || g.Runner != w.Runner || math.Abs(g.Seconds-w.Seconds) > 1e-9 || math.Abs(g.Thread-w.Thread) > 1e-9 ||
			math.Abs(g.Wait-w.Wait) > 1e-9 || g.HasWait != w.HasWait {
			t.Errorf("PID %d: got %+v, want %+v", w.PID, g, w)
		}
	}
}

// A malformed stat fails the reading, naming the file but quoting none
// of it; an unreadable root fails too.
func TestReadMalformed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "12")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := "fixture-secret-5e1d"
	for file, body := range map[string]string{"stat": "12 (" + secret + ") S 1 2\n", "cmdline": "node\x00--key=" + secret + "\x00"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Reader{Root: root}.Read([]int{12})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "12", "stat")) || strings.Contains(err.Error(), secret) {
		t.Fatalf("err %v: want the stat file named and no content", err)
	}
	if _, err := (Reader{Root: filepath.Join(root, "absent")}).Read([]int{1}); err == nil {
		t.Fatal("a missing root was read")
	}
}

func TestIsRunner(t *testing.T) {
	for argv, want := range map[string]bool{
		"node\x00/usr/local/lib/node_modules/n8n/node_modules/@n8n/task-runner/dist/start.js":                     true,
		"node\x00--disallow-code-generation-from-strings\x00/opt/n8n/node_modules/@n8n/task-runner/dist/start.js": true,
		"node\x00/usr/local/bin/n8n\x00worker":                                                                    false,
		"/sbin/tini\x00--\x00/docker-entrypoint.sh\x00worker":                                                     false,
		"": false,
		"node\x00/usr/local/bin/n8n\x00start\x00--tunnel":   false,
		"/usr/local/bin/task-runner-launcher\x00javascript": true,
	} {
		if got := IsRunner(strings.Split(argv, "\x00")); got != want {
			t.Errorf("IsRunner(%q) = %v, want %v", argv, got, want)
		}
	}
}

// A kernel without schedstat reads no wait and no error; a malformed
// schedstat fails the reading, naming the file but quoting none of it.
func TestReadWait(t *testing.T) {
	root := fixtureCopy(t)
	file := filepath.Join(root, "7", "task", "7", "schedstat")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	ps, err := Reader{Root: root}.Read([]int{7})
	if err != nil || len(ps) != 1 || ps[0].HasWait || ps[0].Wait != 0 || ps[0].Thread != 126 {
		t.Fatalf("without schedstat: got %+v, %v; want the CPU read and no wait", ps, err)
	}
	secret := "fixture-secret-77a0"
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Reader{Root: root}.Read([]int{7})
	if err == nil || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), secret) {
		t.Fatalf("err %v: want %s named and no content", err, file)
	}
}

// A thread gone between its stat and its schedstat (both files missing
// now) is an exit, not a kernel without schedstat: mainWait returns the
// not-exist error that Read takes for an exited process.
func TestMainWaitOfAnEndedThread(t *testing.T) {
	root := fixtureCopy(t)
	pfs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pfs.Proc(7)
	if err != nil {
		t.Fatal(err)
	}
	thread, err := p.Thread(7)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "7", "task", "7")); err != nil {
		t.Fatal(err)
	}
	if _, has, err := mainWait(thread); has || !exited(err) {
		t.Fatalf("has %v, err %v: want an exited thread's not-exist error", has, err)
	}
}

// fixtureCopy is a copy of the fixture tree that a test may change.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(fixtureRoot)); err != nil {
		t.Fatal(err)
	}
	return root
}
