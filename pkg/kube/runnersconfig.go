package kube

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// runnersConfig is the launcher's config file where a ConfigMap volume
// holds it: mounted at the file with a subPath, or at its directory. nil
// when no ConfigMap does (the image's own file, or another volume kind),
// or when the ConfigMap or its key is missing (the pod cannot start).
func runnersConfig(pod *corev1.Pod, c corev1.Container, env topology.Env, cms ConfigMaps) *topology.RunnersConfig {
	file := topology.RunnersConfigPath(env)
	for _, m := range c.VolumeMounts {
		vol := configMapVolume(pod, m.Name)
		if vol == nil {
			continue
		}
		var rel string
		switch {
		case m.SubPath != "" && path.Clean(m.MountPath) == file:
			rel = m.SubPath
		case m.SubPath == "" && path.Clean(m.MountPath) == path.Dir(file):
			rel = path.Base(file)
		default:
			continue
		}
		cm := cms(pod.Namespace, vol.Name)
		if cm == nil {
			return nil
		}
		if data, ok := cm.Data[projectedKey(vol.Items, rel)]; ok {
			return &topology.RunnersConfig{Data: []byte(data), From: "ConfigMap " + pod.Namespace + "/" + vol.Name}
		}
		return nil
	}
	return nil
}

// configMapVolume is the pod's volume named name when a ConfigMap backs it.
func configMapVolume(pod *corev1.Pod, name string) *corev1.ConfigMapVolumeSource {
	for _, v := range pod.Spec.Volumes {
		if v.Name == name {
			return v.ConfigMap
		}
	}
	return nil
}

// projectedKey is the ConfigMap key a volume shows at rel: with items,
// the one whose path is rel; without, rel itself.
func projectedKey(items []corev1.KeyToPath, rel string) string {
	if len(items) == 0 {
		return rel
	}
	for _, it := range items {
		if path.Clean(it.Path) == strings.TrimPrefix(path.Clean(rel), "./") {
			return it.Key
		}
	}
	return ""
}
