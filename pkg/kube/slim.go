package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// slim trims an object before the informer caches it: managed fields and
// annotations (a last-applied copy doubles a big object) go from every
// kind, but for a pod's n8n-ceiling.io/ ones, which declare settings; binary data from ConfigMaps, and from pods every literal env
// value that is not whitelisted, so credentials written into a pod spec
// never sit in the exporter's memory. Other kinds pass unchanged.
func slim(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.ManagedFields, o.Annotations = nil, declarations(o.Annotations)
		blankEnv(o.Spec.Containers)
		blankEnv(o.Spec.InitContainers)
		o.Spec.EphemeralContainers = nil
		o.Spec.Volumes = nil
	case *corev1.ConfigMap:
		o.ManagedFields, o.Annotations, o.BinaryData = nil, nil, nil
	case *discoveryv1.EndpointSlice:
		o.ManagedFields, o.Annotations = nil, nil
	}
	return obj, nil
}

// declarations are the n8n-ceiling.io/ annotations, nil for none; one
// that declares nothing the exporter reads keeps its key, to be reported,
// and loses its value.
func declarations(as map[string]string) map[string]string {
	var out map[string]string
	for k, v := range as {
		if !strings.HasPrefix(k, topology.DeclarePrefix) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		if !topology.Declares(k) {
			v = ""
		}
		out[k] = v
	}
	return out
}

func blankEnv(cs []corev1.Container) {
	for i := range cs {
		for j := range cs[i].Env {
			if e := &cs[i].Env[j]; !topology.Whitelisted(e.Name) {
				e.Value = ""
			}
		}
	}
}
