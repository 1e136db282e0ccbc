package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// podCgroup is the pod's cgroup in the kubelet's cgroupfs layout,
// relative to a hierarchy's root: "kubepods/pod<UID>" for the Guaranteed
// QoS class, "kubepods/burstable/pod<UID>" and "kubepods/besteffort/…"
// for the others. The cgroup reader derives the systemd driver's slices
// from it. "" when the pod has no UID or class yet.
func podCgroup(pod *corev1.Pod) string {
	if pod.UID == "" {
		return ""
	}
	switch pod.Status.QOSClass {
	case corev1.PodQOSGuaranteed:
		return "kubepods/pod" + string(pod.UID)
	case corev1.PodQOSBurstable, corev1.PodQOSBestEffort:
		return "kubepods/" + strings.ToLower(string(pod.Status.QOSClass)) + "/pod" + string(pod.UID)
	}
	return ""
}

// runtimeID is a container status's runtime ID, its containerID less the
// "<runtime>://" scheme ("" before the container was created).
func runtimeID(cs *corev1.ContainerStatus) string {
	if cs == nil {
		return ""
	}
	_, id, ok := strings.Cut(cs.ContainerID, "://")
	if !ok {
		return ""
	}
	return id
}
