package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Each process carries what the cgroup reader needs to find its
// container: the runtime's ID from the container status, and the pod's
// cgroup from its UID and QoS class.
func TestTranslateCgroupIdentity(t *testing.T) {
	for class, want := range map[corev1.PodQOSClass]string{
		corev1.PodQOSGuaranteed: "kubepods/pod0b4e-11",
		corev1.PodQOSBurstable:  "kubepods/burstable/pod0b4e-11",
		corev1.PodQOSBestEffort: "kubepods/besteffort/pod0b4e-11",
		"":                      "",
	} {
		pod := runningPod("n8n", "w", "10.1.0.7", hostingWorker("10"))
		pod.UID, pod.Status.QOSClass = types.UID("0b4e-11"), class
		pod.Status.ContainerStatuses[0].ContainerID = "containerd://9f86d081884c7d65"
		ps, _ := Translate(Objects{Pods: []*corev1.Pod{pod}, ConfigMaps: lookup()})
		if len(ps) != 1 {
			t.Fatalf("%q: processes %+v", class, ps)
		}
		if p := ps[0]; p.CgroupParent != want || p.RuntimeID != "9f86d081884c7d65" || p.CgroupID() != "9f86d081884c7d65" {
			t.Errorf("%q: parent %q, runtime ID %q, cgroup ID %q; want %q and the status's ID", class, p.CgroupParent, p.RuntimeID, p.CgroupID(), want)
		}
	}
	// Not created yet: no runtime ID, and the cgroup ID falls back to ID.
	pod := runningPod("n8n", "w", "10.1.0.7", hostingWorker("10"))
	ps, _ := Translate(Objects{Pods: []*corev1.Pod{pod}, ConfigMaps: lookup()})
	if p := ps[0]; p.RuntimeID != "" || p.CgroupParent != "" || p.CgroupID() != p.ID {
		t.Errorf("no status ID, no UID: runtime ID %q, parent %q, cgroup ID %q", p.RuntimeID, p.CgroupParent, p.CgroupID())
	}
}

func TestRuntimeID(t *testing.T) {
	for in, want := range map[string]string{"containerd://abc": "abc", "cri-o://d1": "d1", "docker://e2": "e2", "abc": "", "": ""} {
		if got := runtimeID(&corev1.ContainerStatus{ContainerID: in}); got != want {
			t.Errorf("runtimeID(%q) = %q, want %q", in, got, want)
		}
	}
	if runtimeID(nil) != "" {
		t.Error("a missing status gave an ID")
	}
}
