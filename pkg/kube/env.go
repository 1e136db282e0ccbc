package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// ConfigMaps finds a ConfigMap in the informer's cache; nil = not found.
type ConfigMaps func(namespace, name string) *corev1.ConfigMap

// envValue is one variable as the container will see it: a value, or why
// it cannot be read.
type envValue struct {
	value   string
	unknown string
	from    topology.Source
}

// hidden is a source the exporter cannot read that may set any key with
// its prefix.
type hidden struct{ prefix, reason string }

// containerEnv resolves c's environment the way the kubelet does: envFrom
// in order, then env in order, a later entry replacing an earlier one.
// Only whitelisted values are kept (topology.Env.Set drops the others).
// A Secret behind envFrom may set any whitelisted key that nothing else
// sets: such keys read as unknown (topology.Env.MayHide). The pod's
// n8n-ceiling.io/<VAR> annotations then declare what is left unset or
// unreadable.
func containerEnv(pod *corev1.Pod, c corev1.Container, cms ConfigMaps) topology.Env {
	ns := pod.Namespace
	vars := map[string]envValue{}
	var hides []hidden
	for _, src := range c.EnvFrom {
		switch {
		case src.ConfigMapRef != nil:
			ref := src.ConfigMapRef
			cm := cms(ns, ref.Name)
			if cm == nil {
				if !isTrue(ref.Optional) {
					hides = append(hides, hidden{src.Prefix, "ConfigMap " + ns + "/" + ref.Name + " not found"})
				}
				continue
			}
			for k, v := range cm.Data {
				vars[src.Prefix+k] = envValue{value: v, from: topology.SourceConfigMap}
			}
		case src.SecretRef != nil:
			hides = append(hides, hidden{src.Prefix, "may come from Secret " + ns + "/" + src.SecretRef.Name})
		}
	}
	for _, e := range c.Env {
		if v, set := envVar(ns, e, cms); set {
			vars[e.Name] = v
		} else {
			delete(vars, e.Name)
		}
	}
	var env topology.Env
	for k, v := range vars {
		if v.unknown != "" {
			env.SetUnknown(k, v.unknown)
		} else {
			env.SetFrom(k, v.value, v.from)
		}
	}
	for _, h := range hides {
		env.MayHide(h.prefix, h.reason)
	}
	env.Declare(pod.Annotations)
	return env
}

// envVar resolves one env entry; set is false when the kubelet leaves the
// variable unset (an optional ConfigMap or key that is missing). The
// reasons name the source, never a value.
func envVar(ns string, e corev1.EnvVar, cms ConfigMaps) (v envValue, set bool) {
	from := e.ValueFrom
	switch {
	case from == nil:
		return envValue{value: e.Value, from: topology.SourceEnv}, true
	case from.SecretKeyRef != nil:
		return envValue{unknown: "from Secret " + ns + "/" + from.SecretKeyRef.Name}, true
	case from.ConfigMapKeyRef != nil:
		return configMapKey(ns, from.ConfigMapKeyRef, cms)
	case from.FieldRef != nil:
		return envValue{unknown: "from the pod field " + from.FieldRef.FieldPath}, true
	case from.ResourceFieldRef != nil:
		return envValue{unknown: "from the container resource " + from.ResourceFieldRef.Resource}, true
	}
	return envValue{unknown: "from a source the exporter does not read"}, true
}

func configMapKey(ns string, ref *corev1.ConfigMapKeySelector, cms ConfigMaps) (envValue, bool) {
	name := "ConfigMap " + ns + "/" + ref.Name
	cm := cms(ns, ref.Name)
	if cm == nil {
		return envValue{unknown: name + " not found"}, !isTrue(ref.Optional)
	}
	v, ok := cm.Data[ref.Key]
	if !ok {
		return envValue{unknown: name + " has no key " + ref.Key}, !isTrue(ref.Optional)
	}
	return envValue{value: v, from: topology.SourceConfigMap}, true
}

func isTrue(b *bool) bool { return b != nil && *b }
