package kube

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// service is a Kubernetes Service as its EndpointSlices show it: its
// name, and its target ports (the pods' ports) without the Service's own
// port numbers, which only the Service object holds.
type service struct {
	ns, name string
	targets  []int // distinct, sorted
}

// names are the DNS names that resolve to the Service: the short one in
// its namespace only, the longer ones from everywhere.
func (s *service) names() []topology.Address {
	base := s.name + "." + s.ns
	return []topology.Address{
		{Host: s.name, Via: topology.ViaService, Scope: s.ns},
		{Host: base, Via: topology.ViaService},
		{Host: base + ".svc", Via: topology.ViaService},
		{Host: base + ".svc.cluster.local", Via: topology.ViaService},
	}
}

// ports maps a dialled port to the pod's port. A port equal to a target
// port lands there. With one target port, every port a process dials the
// Service on lands there too: a connection to a port the Service does not
// have fails, so a working client dials a real one, and its only target
// is that. With several, an unequal port cannot be placed without the
// Service object and matches nothing.
func (s *service) ports(dialled map[string][]int) map[int]int {
	if len(s.targets) == 0 {
		return nil // a Service without ports: the dialled port itself
	}
	m := map[int]int{}
	if len(s.targets) == 1 {
		for _, a := range s.names() {
			for _, p := range dialled[a.Host] {
				m[p] = s.targets[0]
			}
		}
	}
	for _, t := range s.targets {
		m[t] = t
	}
	return m
}

// servicesByPod maps "<namespace>/<pod>" to the Services whose
// EndpointSlices list the pod, by target reference or else by IP.
func servicesByPod(sl []*discoveryv1.EndpointSlice, pods []*corev1.Pod) map[string][]*service {
	byIP := map[string]string{}
	for _, p := range pods {
		for _, ip := range p.Status.PodIPs {
			byIP[p.Namespace+"/"+ip.IP] = p.Namespace + "/" + p.Name
		}
	}
	svcs := map[string]*service{}
	out := map[string][]*service{}
	for _, s := range sl {
		name := s.Labels[discoveryv1.LabelServiceName]
		if name == "" {
			continue
		}
		key := s.Namespace + "/" + name
		svc := svcs[key]
		if svc == nil {
			svc = &service{ns: s.Namespace, name: name}
			svcs[key] = svc
		}
		svc.addPorts(s.Ports)
		for _, ep := range s.Endpoints {
			if pod := endpointPod(s.Namespace, ep, byIP); pod != "" && !slices.Contains(out[pod], svc) {
				out[pod] = append(out[pod], svc)
			}
		}
	}
	for _, l := range out {
		slices.SortFunc(l, func(a, b *service) int { return strings.Compare(a.name, b.name) })
	}
	return out
}

func (s *service) addPorts(ps []discoveryv1.EndpointPort) {
	for _, p := range ps {
		if p.Port != nil && !slices.Contains(s.targets, int(*p.Port)) {
			s.targets = append(s.targets, int(*p.Port))
		}
	}
	slices.Sort(s.targets)
}

func endpointPod(ns string, ep discoveryv1.Endpoint, byIP map[string]string) string {
	if r := ep.TargetRef; r != nil && r.Kind == "Pod" {
		if r.Namespace != "" {
			ns = r.Namespace
		}
		return ns + "/" + r.Name
	}
	for _, ip := range ep.Addresses {
		if pod, ok := byIP[ns+"/"+ip]; ok {
			return pod
		}
	}
	return ""
}

// dialledPorts lists, per host name, the ports processes dial it on: the
// runners' broker URIs and the probes' upstreams.
func dialledPorts(ps []topology.Process) map[string][]int {
	m := map[string][]int{}
	add := func(e topology.Endpoint) {
		if !slices.Contains(m[e.Host], e.Port) {
			m[e.Host] = append(m[e.Host], e.Port)
		}
	}
	for _, p := range ps {
		if p.Settings.Broker.Known() && p.Role.RunsTasks() {
			add(p.Settings.Broker.Value)
		}
		for _, r := range p.Settings.Routes.Value {
			add(r.Upstream)
		}
	}
	return m
}
