package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Reader finds and reads containers' cgroup directories. Root is the
// host's /sys/fs/cgroup (mount it read-only when the exporter runs in a
// container).
type Reader struct {
	Root string
	v2   bool
}

// NewReader detects the hierarchy version under root.
func NewReader(root string) Reader {
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	return Reader{Root: root, v2: err == nil}
}

// V2 reports whether root is a unified (cgroup v2) hierarchy.
func (r Reader) V2() bool { return r.v2 }

// ErrNotFound means none of the candidate directories exists.
var ErrNotFound = errors.New("container cgroup not found")

// hierarchy is controller's hierarchy: v1 mounts each under the root,
// v2 has one, the root.
func (r Reader) hierarchy(controller string) string {
	if r.v2 {
		return r.Root
	}
	return filepath.Join(r.Root, controller)
}

// find returns container id's directory for controller (v1's hierarchy
// name; v2 has one), the first candidate that holds file. It tries the
// cgroupfs and systemd drivers' layouts under parent (the container's
// --cgroup-parent or Kubernetes pod cgroup, "" for none) and then
// Docker's defaults.
func (r Reader) find(controller, file, id, parent string) (string, error) {
	base := r.hierarchy(controller)
	for _, p := range parents(parent) {
		for _, leaf := range leaves(id) {
			d := filepath.Join(base, filepath.Clean("/"+p), leaf)
			if _, err := os.Stat(filepath.Join(d, file)); err == nil {
				return d, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s under %s", ErrNotFound, shortID(id), base)
}

// parents are the directories a container's cgroup may sit in: parent
// as given and as a systemd slice (for a Kubernetes pod,
// podSlice's path), then Docker's defaults.
func parents(parent string) []string {
	ps := []string{"docker", "system.slice"}
	switch {
	case parent == "":
		return ps
	case strings.HasPrefix(parent, kubepods+"/"):
		return append([]string{parent, podSlice(parent)}, ps...)
	}
	return append([]string{strings.TrimSuffix(parent, ".slice") + ".slice", parent}, ps...)
}

// leaves are a container's directory names: the cgroupfs driver's (its
// ID), and the systemd driver's scopes for Docker, containerd and CRI-O.
func leaves(id string) []string {
	return []string{id, "docker-" + id + ".scope", "cri-containerd-" + id + ".scope", "crio-" + id + ".scope"}
}

// kubepods is the kubelet's top cgroup for pods (cgroupfs driver).
const kubepods = "kubepods"

// HoldsPods reports whether root is a node's hierarchy with the
// kubelet's pod cgroups in it (either driver's), not the view a container
// has of its own cgroup.
func HoldsPods(root string) bool {
	base := NewReader(root).hierarchy("cpuacct")
	for _, d := range []string{kubepods, kubepods + ".slice"} {
		if fi, err := os.Stat(filepath.Join(base, d)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// podSlice is the systemd driver's path for a pod's cgroupfs path
// "kubepods[/<class>]/pod<UID>": each level a slice named for the levels
// above it, the UID's dashes as underscores.
func podSlice(parent string) string {
	var out []string
	name := ""
	for part := range strings.SplitSeq(parent, "/") {
		if name == "" {
			name = part
		} else {
			name += "-" + strings.ReplaceAll(part, "-", "_")
		}
		out = append(out, name+".slice")
	}
	return strings.Join(out, "/")
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
