package kube

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Objects is what one Discover reads from the informers' caches.
type Objects struct {
	Pods       []*corev1.Pod
	ConfigMaps ConfigMaps
	Slices     []*discoveryv1.EndpointSlice
}

// Translate turns the objects into the n8n processes of the pods that
// count, sorted by name, and lists the pods holding n8n containers that
// do not count yet, with why.
func Translate(o Objects) ([]topology.Process, []topology.NotCounted) {
	pods := slices.Clone(o.Pods)
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	var ps []topology.Process
	var out []topology.NotCounted
	for _, pod := range pods {
		procs := podProcesses(pod, o.ConfigMaps)
		if len(procs) == 0 {
			continue
		}
		if nc, left := leftOut(pod); left {
			out = append(out, nc)
			continue
		}
		ps = append(ps, procs...)
	}
	addServices(ps, servicesByPod(o.Slices, pods))
	return ps, out
}

// podProcesses translates the pod's n8n containers: its containers and
// its native sidecars (init containers that keep running).
func podProcesses(pod *corev1.Pod, cms ConfigMaps) []topology.Process {
	statuses := map[string]*corev1.ContainerStatus{}
	for i, cs := range allStatuses(pod) {
		statuses[cs.Name] = &allStatuses(pod)[i]
	}
	var ps []topology.Process
	for _, c := range podContainers(pod) {
		p, ok := topology.NewProcess(topology.Spec{Argv: append(slices.Clone(c.Command), c.Args...), Image: c.Image,
			Env: containerEnv(pod, c, cms)})
		if !ok {
			continue
		}
		instance := pod.Namespace + "/" + pod.Name
		p.ID, p.Name, p.Instance = instance+"/"+c.Name, instance+"/"+c.Name, instance
		p.State = containerState(c, statuses[c.Name])
		p.CgroupParent, p.RuntimeID = podCgroup(pod), runtimeID(statuses[c.Name])
		p.Net = topology.Network{Host: pod.Spec.HostNetwork, Namespace: instance, Scope: pod.Namespace}
		for _, ip := range pod.Status.PodIPs {
			p.Net.Addresses = append(p.Net.Addresses, topology.Address{Host: strings.ToLower(ip.IP), Via: topology.ViaIP})
		}
		ps = append(ps, p)
	}
	return ps
}

func podContainers(pod *corev1.Pod) []corev1.Container {
	var cs []corev1.Container
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			cs = append(cs, c)
		}
	}
	return append(cs, pod.Spec.Containers...)
}

// addServices puts the names of the Services that list each process's
// pod before its IPs, with their port maps.
func addServices(ps []topology.Process, svcs map[string][]*service) {
	dialled := dialledPorts(ps)
	for i := range ps {
		var addrs []topology.Address
		for _, s := range svcs[ps[i].Instance] {
			ports := s.ports(dialled)
			for _, a := range s.names() {
				a.Ports = ports
				addrs = append(addrs, a)
			}
		}
		ps[i].Net.Addresses = append(addrs, ps[i].Net.Addresses...)
	}
}
