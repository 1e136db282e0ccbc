package peers

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/proccpu"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

// tables writes root/1/net/tcp (and tcp6 unless "") and returns root.
func tables(t testing.TB, tcp, tcp6 string) string {
	root := t.TempDir()
	dir := filepath.Join(root, "1", "net")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tcp", tcp)
	if tcp6 != "" {
		write("tcp6", tcp6)
	}
	return root
}

// A listener, a connection to a broker (twice: one endpoint), one in
// TIME_WAIT, and over IPv6 one IPv4-mapped peer and one IPv6 peer.
func TestTableKeepsEstablishedRemotes(t *testing.T) {
	tcp := header +
		"   0: 00000000:1627 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0\n" +
		"   1: 030012AC:B6E2 020012AC:1627 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0 20 4 30 10 -1\n" +
		"   2: 030012AC:B6E4 020012AC:1627 01 00000000:00000000 00:00000000 00000000  1000        0 3 1 0 20 4 30 10 -1\n" +
		"   3: 030012AC:B6E6 0B0012AC:18EB 06 00000000:00000000 03:00000000 00000000     0        0 0 3 0\n"
	tcp6 := header +
		"   0: 0000000000000000FFFF0000030012AC:B700 0000000000000000FFFF0000040012AC:1627 01 00000000:00000000 00:00000000 00000000  1000        0 4 1 0 20 4 30 10 -1\n" +
		"   1: 000080FE00000000FF00000000000000:B701 000080FE00000000FF00000001000000:1627 01 00000000:00000000 00:00000000 00000000  1000        0 5 1 0 20 4 30 10 -1\n"
	got, err := Table(tables(t, tcp, tcp6), 1)
	want := []topology.Endpoint{{Host: "172.18.0.2", Port: 5671}, {Host: "172.18.0.4", Port: 5671}, {Host: "fe80::ff:0:1", Port: 5671}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
}

func TestTableWithoutIPv6(t *testing.T) {
	got, err := Table(tables(t, header+"   0: 0100007F:B6E2 0100007F:1627 01 00000000:00000000 00:00000000 00000000 0 0 2 1 0 20 4 30 10 -1\n", ""), 1)
	if err != nil || len(got) != 1 || got[0] != (topology.Endpoint{Host: "127.0.0.1", Port: 5671}) {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := Table(t.TempDir(), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no table: %v, want not-exist", err)
	}
	if _, err := Table(tables(t, header+"   0: nothex:zz 0100007F:1627 01\n", ""), 1); err == nil {
		t.Error("a malformed line gave no error")
	}
}

// The kernel's own table: this process's connection to a listener of its
// own is there, as the listener's address.
func TestTableReadsTheKernel(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp4", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := Table("/proc", os.Getpid())
	port := l.Addr().(*net.TCPAddr).Port
	if err != nil || !slices.Contains(got, topology.Endpoint{Host: "127.0.0.1", Port: port}) {
		t.Errorf("peers %v, %v; want 127.0.0.1:%d among them", got, err, port)
	}
}

type pids []int

func (p pids) Procs(string, string) ([]int, error) { return p, nil }

func TestContainersNeedsAVisiblePID(t *testing.T) {
	root := tables(t, header, "")
	for _, list := range []pids{nil, {0}} {
		if _, err := (Containers{PIDs: list, Root: root}).Peers(topology.Process{ID: "x"}); !errors.Is(err, proccpu.ErrOtherNamespace) {
			t.Errorf("pids %v: %v, want ErrOtherNamespace", list, err)
		}
	}
	if got, err := (Containers{PIDs: pids{1, 7}, Root: root}).Peers(topology.Process{ID: "x"}); err != nil || len(got) != 0 {
		t.Errorf("empty table: %v, %v", got, err)
	}
}

// Whatever the table holds, Table returns an error or valid endpoints,
// each once, never more than MaxPeers.
func FuzzTable(f *testing.F) {
	f.Add(header + "   1: 030012AC:B6E2 020012AC:1627 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0 20 4 30 10 -1\n")
	f.Add(header + "   1: 030012AC:B6E2 020012AC:0000 01 0 0 0 0 0 0\n")
	f.Add(header + "   1: 0:0 0:0 01\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		got, err := Table(tables(t, body, body), 1)
		if err != nil {
			return
		}
		seen := map[topology.Endpoint]bool{}
		for _, e := range got {
			if net.ParseIP(e.Host) == nil || e.Port < 1 || e.Port > 65535 || seen[e] {
				t.Fatalf("bad or repeated endpoint %+v in %v", e, got)
			}
			seen[e] = true
		}
		if len(got) > MaxPeers {
			t.Fatalf("%d peers", len(got))
		}
	})
}
