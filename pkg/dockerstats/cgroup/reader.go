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

// find returns container id's directory for controller (v1's hierarchy
// name; v2 has one), the first candidate that holds file. It tries the
// cgroupfs and systemd drivers' layouts under parent (the container's
// --cgroup-parent, "" for none) and then the defaults.
func (r Reader) find(controller, file, id, parent string) (string, error) {
	base := r.Root
	if !r.v2 {
		base = filepath.Join(r.Root, controller)
	}
	parents := []string{"docker", "system.slice"}
	if parent != "" {
		parents = append([]string{strings.TrimSuffix(parent, ".slice") + ".slice", parent}, parents...)
	}
	for _, p := range parents {
		for _, leaf := range []string{id, "docker-" + id + ".scope"} {
			d := filepath.Join(base, filepath.Clean("/"+p), leaf)
			if _, err := os.Stat(filepath.Join(d, file)); err == nil {
				return d, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s under %s", ErrNotFound, shortID(id), base)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
