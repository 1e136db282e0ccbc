package proccpu

import (
	"errors"
	"testing"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

type pidList struct {
	pids []int
	err  error
	id   string
}

func (l *pidList) Procs(id, parent string) ([]int, error) {
	l.id = id + parent
	return l.pids, l.err
}

// PIDs of 0 (v2) or none at all (v1) mean the reader is in another PID
// namespace; a cgroup error passes through; otherwise /proc is read.
func TestContainersProcs(t *testing.T) {
	p := topology.Process{ID: "abc", CgroupParent: "/n8n"}
	broken := errors.New("cgroup.procs: permission denied")
	for name, c := range map[string]struct {
		pids []int
		err  error
		want error
	}{
		"v2, other namespace": {pids: []int{0, 0}, want: ErrOtherNamespace},
		"v1, other namespace": {pids: nil, want: ErrOtherNamespace},
		"unreadable cgroup":   {err: broken, want: broken},
	} {
		_, err := Containers{PIDs: &pidList{pids: c.pids, err: c.err}, Proc: Reader{Root: fixtureRoot}}.Procs(p)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", name, err, c.want)
		}
	}
	l := &pidList{pids: []int{1, 7, 45}}
	ps, err := Containers{PIDs: l, Proc: Reader{Root: fixtureRoot}}.Procs(p)
	if err != nil || len(ps) != 3 || !ps[2].Runner || l.id != "abc/n8n" {
		t.Fatalf("got %+v %v (asked for %q)", ps, err, l.id)
	}
}
