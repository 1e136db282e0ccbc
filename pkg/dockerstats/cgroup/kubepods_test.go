package cgroup

import (
	"path/filepath"
	"testing"
)

const podUID = "6f1c2b9a-0d3e-4c5f-9a7b-1e2d3c4b5a69"

// The kubelet's layouts, as its cgroupfs driver (cgroup v1, the kube lab)
// and its systemd driver (cgroup v2, with containerd's and CRI-O's scopes)
// name a pod's container: found from the pod cgroup the Kubernetes
// platform gives as the parent, and the runtime's container ID.
func TestKubernetesPodLayouts(t *testing.T) {
	cases := []struct {
		name, parent, dir string
		v2                bool
	}{
		{"cgroupfs, Burstable", "kubepods/burstable/pod" + podUID, "cpuacct/kubepods/burstable/pod" + podUID + "/" + testID, false},
		{"cgroupfs, Guaranteed", "kubepods/pod" + podUID, "cpuacct/kubepods/pod" + podUID + "/" + testID, false},
		{"systemd, containerd", "kubepods/besteffort/pod" + podUID,
			"kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod6f1c2b9a_0d3e_4c5f_9a7b_1e2d3c4b5a69.slice/cri-containerd-" + testID + ".scope", true},
		{"systemd, CRI-O", "kubepods/pod" + podUID,
			"kubepods.slice/kubepods-pod6f1c2b9a_0d3e_4c5f_9a7b_1e2d3c4b5a69.slice/crio-" + testID + ".scope", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			file := map[string]string{"cpuacct.usage": "3000000000\n"}
			if c.v2 {
				writeFiles(t, root, map[string]string{"cgroup.controllers": "cpu memory\n"})
				file = map[string]string{"cpu.stat": "usage_usec 3000000\n"}
			}
			writeFiles(t, filepath.Join(root, filepath.FromSlash(c.dir)), file)
			if !HoldsPods(root) {
				t.Errorf("HoldsPods(%s) is false with %s in it", root, c.dir)
			}
			got, err := NewReader(root).CPU(testID, c.parent)
			if err != nil || got.Seconds != 3 {
				t.Fatalf("CPU under %s: %+v, %v; want 3 s", c.parent, got, err)
			}
			if _, err := NewReader(root).CPU(testID, "kubepods/burstable/podother"); err == nil {
				t.Errorf("another pod's parent found the container")
			}
		})
	}
}

// What a pod sees of cgroups without the node's mounted: its own
// container's counters at the root, no kubepods.
func TestHoldsPodsNotOwnView(t *testing.T) {
	v1 := t.TempDir()
	writeFiles(t, filepath.Join(v1, "cpuacct"), map[string]string{"cpuacct.usage": "1\n"})
	v2 := t.TempDir()
	writeFiles(t, v2, map[string]string{"cgroup.controllers": "cpu\n", "cpu.stat": "usage_usec 1\n"})
	for name, root := range map[string]string{"v1": v1, "v2": v2, "missing": filepath.Join(v1, "absent")} {
		if HoldsPods(root) {
			t.Errorf("%s: HoldsPods is true for a container's own view", name)
		}
	}
	// A file named kubepods is not the kubelet's directory.
	writeFiles(t, v2, map[string]string{"kubepods": ""})
	if HoldsPods(v2) {
		t.Error("a file named kubepods counted as the pods' cgroup")
	}
}

func TestPodSlice(t *testing.T) {
	for in, want := range map[string]string{
		"kubepods/pod" + podUID:      "kubepods.slice/kubepods-pod6f1c2b9a_0d3e_4c5f_9a7b_1e2d3c4b5a69.slice",
		"kubepods/burstable/pod1-2":  "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice",
		"kubepods/besteffort/podabc": "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podabc.slice",
	} {
		if got := podSlice(in); got != want {
			t.Errorf("podSlice(%q) = %q, want %q", in, got, want)
		}
	}
}
