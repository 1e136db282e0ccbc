package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A literal credential in a pod spec never reaches the cache; the
// whitelisted values and every name stay.
func TestSlimDropsNonWhitelistedValues(t *testing.T) {
	pod := runningPod("n8n", "w", "10.1.0.7", hostingRunner("http://localhost:5679",
		val("N8N_RUNNERS_AUTH_TOKEN", "hunter2"), val("N8N_RUNNERS_MAX_CONCURRENCY", "4")))
	pod.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"env":"hunter2"}`}
	pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	obj, _ := slim(pod)
	got := obj.(*corev1.Pod)
	for _, e := range got.Spec.Containers[0].Env {
		switch {
		case e.Value == "hunter2":
			t.Errorf("%s kept its value", e.Name)
		case e.Name == "N8N_RUNNERS_MAX_CONCURRENCY" && e.Value != "4":
			t.Errorf("whitelisted value lost: %q", e.Value)
		}
	}
	if got.Annotations != nil || got.ManagedFields != nil || len(got.Spec.Containers[0].Env) != 5 {
		t.Errorf("annotations %v, managed fields %v, env %d", got.Annotations, got.ManagedFields, len(got.Spec.Containers[0].Env))
	}
	cm := configMap("n8n", "c", map[string]string{"k": "v"})
	cm.BinaryData = map[string][]byte{"blob": make([]byte, 1<<20)}
	if obj, _ := slim(cm); obj.(*corev1.ConfigMap).BinaryData != nil || obj.(*corev1.ConfigMap).Data["k"] != "v" {
		t.Error("ConfigMap slimmed wrong")
	}
	if obj, _ := slim("tombstone"); obj != "tombstone" {
		t.Error("other kinds must pass unchanged")
	}
}
