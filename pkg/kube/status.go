package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// crashLoop is the waiting reason of a container the kubelet keeps
// restarting after failures.
const crashLoop = "CrashLoopBackOff"

// leftOut says why a pod's processes are not counted now; ok is false
// for a Running pod that counts. Only Running pods count: a pending pod
// serves nothing yet, a terminating one stops taking jobs, and a
// crash-looping container takes its pod's capacity with it.
func leftOut(pod *corev1.Pod) (topology.NotCounted, bool) {
	nc := topology.NotCounted{Name: pod.Namespace + "/" + pod.Name, Phase: string(pod.Status.Phase)}
	switch {
	case pod.DeletionTimestamp != nil:
		nc.Reason = "terminating"
	case pod.Status.Phase != corev1.PodRunning:
		nc.Reason = pendingReason(pod)
	default:
		name, ok := crashLooping(pod)
		if !ok {
			return topology.NotCounted{}, false
		}
		nc.Reason = crashLoop + " (container " + name + ")"
	}
	return nc, true
}

// pendingReason is the pod's own reason, else the first waiting
// container's (ContainerCreating, ImagePullBackOff, …), else why it is
// not scheduled.
func pendingReason(pod *corev1.Pod) string {
	if pod.Status.Reason != "" {
		return pod.Status.Reason
	}
	for _, cs := range allStatuses(pod) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason + " (container " + cs.Name + ")"
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			return c.Reason
		}
	}
	return ""
}

func crashLooping(pod *corev1.Pod) (string, bool) {
	for _, cs := range allStatuses(pod) {
		if w := cs.State.Waiting; w != nil && w.Reason == crashLoop {
			return cs.Name, true
		}
	}
	return "", false
}

func allStatuses(pod *corev1.Pod) []corev1.ContainerStatus {
	return append(pod.Status.InitContainerStatuses[:len(pod.Status.InitContainerStatuses):len(pod.Status.InitContainerStatuses)],
		pod.Status.ContainerStatuses...)
}

// containerState is what the pod spec and status say of one container:
// its memory limit, whether it runs, its restarts and a last exit by OOM
// kill.
func containerState(c corev1.Container, cs *corev1.ContainerStatus) topology.State {
	var s topology.State
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		s.MemoryLimit = q.Value()
	}
	if cs == nil {
		return s
	}
	s.Running = cs.State.Running != nil
	s.RestartCount = int(cs.RestartCount)
	s.OOMKilled = oomKilled(cs.LastTerminationState) || oomKilled(cs.State)
	return s
}

func oomKilled(st corev1.ContainerState) bool {
	return st.Terminated != nil && st.Terminated.Reason == "OOMKilled"
}
