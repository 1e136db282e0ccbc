package kube

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// A worker pod whose settings all come from a Secret (envFrom secretRef,
// as charts' worker.secret does) is read from its n8n-ceiling.io/
// annotations, through the informer's slimming; the ConfigMap-held value
// keeps its source, and what nothing declares stays unknown.
func TestDeclaredAnnotations(t *testing.T) {
	worker := corev1.Container{Name: "n8n", Image: "n8nio/n8n:2.23.2", Command: []string{"n8n"}, Args: []string{"worker"},
		EnvFrom: []corev1.EnvFromSource{envFromSecret("n8n-env")},
		Env:     []corev1.EnvVar{fromConfigMap("N8N_RUNNERS_BROKER_PORT", "n8n", "port", false)}}
	runner := hostingRunner("http://localhost:5679")
	runner.Env, runner.EnvFrom = runner.Env[:1], []corev1.EnvFromSource{envFromSecret("n8n-env")}
	pod := runningPod("n8n", "w", "10.1.0.7", worker, runner)
	pod.Annotations = map[string]string{
		topology.DeclarePrefix + "N8N_CONCURRENCY_PRODUCTION_LIMIT": "6",
		topology.DeclarePrefix + "N8N_RUNNERS_MODE":                 "external",
		topology.DeclarePrefix + "N8N_RUNNERS_MAX_CONCURRENCY":      "3",
		topology.DeclarePrefix + "N8N_RUNNERS_AUTH_TOKEN":           "hunter2",
		"kubectl.kubernetes.io/last-applied-configuration":          "{}",
	}
	obj, _ := slim(pod)
	pod = obj.(*corev1.Pod)
	if v, ok := pod.Annotations[topology.DeclarePrefix+"N8N_RUNNERS_AUTH_TOKEN"]; !ok || v != "" || len(pod.Annotations) != 4 {
		t.Fatalf("slimmed annotations %v", pod.Annotations)
	}
	ps, _ := Translate(Objects{Pods: []*corev1.Pod{pod}, ConfigMaps: lookup(configMap("n8n", "n8n", map[string]string{"port": "5690"}))})
	if len(ps) != 2 {
		t.Fatalf("processes %+v", ps)
	}
	w, r := ps[0], ps[1]
	if c := w.Settings.Concurrency; c.Value != 6 || c.From != topology.SourceDeclared {
		t.Errorf("worker concurrency %+v", c)
	}
	if m := w.Settings.RunnersMode; m.Value != topology.RunnersExternal || m.From != topology.SourceDeclared {
		t.Errorf("runners mode %+v", m)
	}
	if p := w.Settings.BrokerPort; p.Value != 5690 || p.From != topology.SourceConfigMap {
		t.Errorf("broker port %+v", p)
	}
	if l := r.Settings.RunnerLimit; l.Value != 3 || l.From != topology.SourceDeclared {
		t.Errorf("runner limit %+v", l)
	}
	if s := w.Settings.TaskRequestTimeout; s.Known() {
		t.Errorf("undeclared Secret-held setting known: %+v", s)
	}
	if len(w.Problems) == 0 || !slices.Contains(w.Problems, topology.DeclarePrefix+"N8N_RUNNERS_AUTH_TOKEN declares no setting the exporter reads") {
		t.Errorf("problems %v", w.Problems)
	}
}
