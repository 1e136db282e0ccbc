package kube

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Footprint names what a running lab cluster puts on the host, so that
// Leftovers can tell what a teardown missed.
type Footprint struct {
	State      string   // the lab's state directory
	Bin        string   // the cached Kubernetes, etcd and helm binaries
	Netns      string   // the cluster's network namespace
	Veth       string   // the host end of the veth pair
	NetnsInode uint64   // inode of the namespace, recorded at start; 0 = unknown
	Created    []string // host paths the start created
	MadeMounts []string // existing paths the start turned into mount points
	CgroupRoot string   // where the cgroup hierarchies are mounted
}

// Files under State/run that up.sh writes and FootprintOf reads.
const (
	CreatedPathsFile = "created-paths" // one host path a line
	NetnsInodeFile   = "netns-inode"   // the namespace's inode number
	MadeMountsFile   = "made-mounts"   // one path a line
	SysctlFile       = "sysctl.saved"  // key=value as found before the kubelet ran
)

// FootprintOf reads what up.sh recorded under state/run.
func FootprintOf(state, bin, netns, veth string) Footprint {
	f := Footprint{State: state, Bin: bin, Netns: netns, Veth: veth, CgroupRoot: "/sys/fs/cgroup"}
	run := filepath.Join(state, "run")
	if b, err := os.ReadFile(filepath.Join(run, CreatedPathsFile)); err == nil {
		f.Created = strings.Fields(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(run, MadeMountsFile)); err == nil {
		f.MadeMounts = strings.Fields(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(run, NetnsInodeFile)); err == nil {
		f.NetnsInode, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	return f
}

// Leftovers lists, one line each, what of the footprint is still on the
// host: processes, mounts, the namespace, the veth, cgroups, created paths
// and an unrestored sysctl record.
func (f Footprint) Leftovers() []string {
	var out []string
	out = append(out, f.processes()...)
	prefixes := append([]string{f.State, filepath.Join("/run/netns", f.Netns)}, f.Created...)
	if mounts, err := HostMountsUnder(prefixes...); err != nil {
		out = append(out, "mounts: "+err.Error())
	} else {
		for _, m := range mounts {
			out = append(out, "mount "+m)
		}
	}
	if made, err := HostMountsUnder(f.MadeMounts...); err == nil {
		for _, m := range made {
			if slices.Contains(f.MadeMounts, m) {
				out = append(out, "mount "+m)
			}
		}
	}
	exists := func(what, p string) {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, what+" "+p)
		}
	}
	exists("network namespace", filepath.Join("/run/netns", f.Netns))
	exists("veth", filepath.Join("/sys/class/net", f.Veth))
	ctrls, _ := os.ReadDir(f.CgroupRoot)
	for _, c := range ctrls {
		exists("cgroup", filepath.Join(f.CgroupRoot, c.Name(), "kubepods"))
	}
	for _, p := range f.Created {
		exists("created path", p)
	}
	exists("sysctl record not restored:", filepath.Join(f.State, "run", SysctlFile))
	return out
}

// processes finds live processes that belong to the cluster: their command line
// names the state or binary directory, they sit in a kubepods cgroup, or
// they are in the cluster's network namespace.
func (f Footprint) processes() []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		// A zombie holds nothing but its PID; this machine's init may never
		// reap the daemons it inherits.
		if err != nil || pid == self || !running(pid) {
			continue
		}
		if why := f.owns(pid); why != "" {
			out = append(out, fmt.Sprintf("process %d (%s): %s", pid, comm(pid), why))
		}
	}
	return out
}

func (f Footprint) owns(pid int) string {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	if cmd, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		for _, arg := range bytes.Split(cmd, []byte{0}) {
			if mentions(string(arg), f.State) || mentions(string(arg), f.Bin) {
				return "command line names " + strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
			}
		}
	}
	if cg, err := os.Open(filepath.Join(dir, "cgroup")); err == nil {
		sc := bufio.NewScanner(cg)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "/kubepods") {
				cg.Close()
				return "in cgroup " + sc.Text()
			}
		}
		cg.Close()
	}
	if f.NetnsInode != 0 {
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join(dir, "ns", "net"), &st) == nil && st.Ino == f.NetnsInode {
			return "in the cluster's network namespace"
		}
	}
	return ""
}

// mentions reports whether arg holds dir as a path (dir itself or below it).
func mentions(arg, dir string) bool {
	if dir == "" {
		return false
	}
	for i := strings.Index(arg, dir); i >= 0; {
		end := i + len(dir)
		if end == len(arg) || arg[end] == '/' || arg[end] == ',' || arg[end] == ' ' {
			return true
		}
		next := strings.Index(arg[end:], dir)
		if next < 0 {
			break
		}
		i = end + next
	}
	return false
}

func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}
