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

// A runners sidecar whose config file a ConfigMap mounts is read per
// type, whether the ConfigMap is mounted at the file (subPath), at its
// directory through items, or at N8N_RUNNERS_CONFIG_PATH's directory;
// another volume kind leaves the image's file assumed.
func TestRunnersConfigFromConfigMap(t *testing.T) {
	cfg := `{"task-runners": [{"runner-type": "javascript", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "3"}},
	 {"runner-type": "python", "env-overrides": {"N8N_RUNNERS_MAX_CONCURRENCY": "2"}}]}`
	cms := lookup(configMap("n8n", "runners", map[string]string{"n8n-task-runners.json": cfg, "alt.json": cfg}))
	cmVol := func(items ...corev1.KeyToPath) corev1.Volume {
		return corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "runners"}, Items: items}}}
	}
	for _, c := range []struct {
		name  string
		vol   corev1.Volume
		mount corev1.VolumeMount
		env   []corev1.EnvVar
		js    int
	}{
		{"subPath", cmVol(), corev1.VolumeMount{Name: "cfg", MountPath: "/etc/n8n-task-runners.json", SubPath: "n8n-task-runners.json"}, nil, 3},
		{"directory with items", cmVol(corev1.KeyToPath{Key: "alt.json", Path: "runners.json"}), corev1.VolumeMount{Name: "cfg", MountPath: "/cfg"},
			[]corev1.EnvVar{val("N8N_RUNNERS_CONFIG_PATH", "/cfg/runners.json")}, 3},
		{"another volume kind", corev1.Volume{Name: "cfg", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			corev1.VolumeMount{Name: "cfg", MountPath: "/etc/n8n-task-runners.json", SubPath: "x"}, nil, 10},
	} {
		runner := hostingRunner("http://localhost:5679", c.env...)
		runner.VolumeMounts = []corev1.VolumeMount{c.mount}
		pod := runningPod("n8n", "w", "10.1.0.7", runner)
		pod.Spec.Volumes = []corev1.Volume{c.vol, {Name: "tok", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}
		obj, _ := slim(pod)
		if vs := obj.(*corev1.Pod).Spec.Volumes; len(vs) > 1 || len(vs) == 1 && vs[0].ConfigMap == nil {
			t.Errorf("%s: slimmed volumes %+v, want the ConfigMap's alone", c.name, vs)
		}
		ps, _ := Translate(Objects{Pods: []*corev1.Pod{obj.(*corev1.Pod)}, ConfigMaps: cms})
		if len(ps) != 1 || len(ps[0].Settings.TaskPools) != 2 {
			t.Fatalf("%s: %+v", c.name, ps)
		}
		pools := ps[0].Settings.TaskPools
		if pools[0].Limit.Value != c.js || c.js == 3 && (pools[1].Limit.Value != 2 || pools[1].Limit.From != topology.SourceRunnersConfig) {
			t.Errorf("%s: pools %+v", c.name, pools)
		}
	}
}
