package dockerstats

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// ComposeServiceLabel is the label compose puts on every service container.
const ComposeServiceLabel = "com.docker.compose.service"

// FromInspect turns an inspect response into a Process. ok is false for
// containers that are not n8n's. Env values outside the whitelist are never
// copied; the caller should drop the response right after. A container in
// another's network namespace keys it "container:<x>" until Discover finds
// x (joinNamespaces). Its n8n-ceiling.io/<VAR> labels declare the
// settings its environment leaves unset.
func FromInspect(in container.InspectResponse) (p topology.Process, ok bool) {
	return (&Client{}).fromInspect(context.Background(), in)
}

// fromInspect is FromInspect with a launcher's config file read from its
// container where c has the Engine API.
func (c *Client) fromInspect(ctx context.Context, in container.InspectResponse) (p topology.Process, ok bool) {
	if in.ContainerJSONBase == nil || in.Config == nil {
		return topology.Process{}, false
	}
	env := topology.ReadEnv(in.Config.Env)
	env.Declare(in.Config.Labels)
	cfg, problem := c.runnersConfig(ctx, in, env)
	p, ok = topology.NewProcess(topology.Spec{Argv: argv(in), Image: in.Config.Image, Env: env, RunnersConfig: cfg})
	if !ok {
		return topology.Process{}, false
	}
	if problem != "" {
		p.Problems = append(p.Problems, problem)
	}
	p.ID, p.Name = in.ID, strings.TrimPrefix(in.Name, "/")
	p.State = state(in)
	p.Net = networkOf(in, p.Name)
	if in.HostConfig != nil {
		p.CgroupParent = in.HostConfig.CgroupParent
	}
	return p, true
}

func state(in container.InspectResponse) topology.State {
	s := topology.State{RestartCount: in.RestartCount}
	if in.State != nil {
		s.OOMKilled = in.State.OOMKilled
		s.Running = in.State.Running || in.State.Restarting
	}
	if in.HostConfig != nil {
		s.MemoryLimit = in.HostConfig.Memory
	}
	return s
}

// networkOf lists what reaches the container, in the order pairing tries
// them: its name, compose service, network aliases, hostname, then IPs.
// On each user-defined network Docker's DNS answers the name, service and
// aliases, so each is an address of that network; the default bridge has
// no DNS and gives only its IP. A container on no network keeps them
// unscoped.
func networkOf(in container.InspectResponse, name string) topology.Network {
	n := topology.Network{Namespace: in.ID}
	if in.HostConfig != nil {
		mode := string(in.HostConfig.NetworkMode)
		n.Host = mode == "host"
		if strings.HasPrefix(mode, "container:") {
			n.Namespace = mode
		}
	}
	var nets map[string]*network.EndpointSettings
	if in.NetworkSettings != nil {
		nets = in.NetworkSettings.Networks
	}
	for _, net := range slices.Sorted(maps.Keys(nets)) {
		if nets[net] != nil && net != "host" && net != "none" {
			n.Networks = append(n.Networks, net)
		}
	}
	add := func(host, via, net string) {
		if host != "" {
			n.Addresses = append(n.Addresses, topology.Address{Host: strings.ToLower(host), Via: via, Network: net})
		}
	}
	named := n.Networks
	if len(named) == 0 {
		named = []string{""}
	}
	named = slices.DeleteFunc(slices.Clone(named), func(net string) bool { return net == defaultBridge })
	for _, net := range named {
		add(name, topology.ViaName, net)
	}
	for _, net := range named {
		add(in.Config.Labels[ComposeServiceLabel], topology.ViaService, net)
	}
	for _, net := range named {
		if ep := nets[net]; ep != nil {
			for _, a := range ep.Aliases {
				add(a, topology.ViaAlias, net)
			}
		}
	}
	add(in.Config.Hostname, topology.ViaHostname, "")
	for _, net := range n.Networks {
		add(nets[net].IPAddress, topology.ViaIP, net)
		add(nets[net].GlobalIPv6Address, topology.ViaIP, net)
	}
	return n
}

// defaultBridge is Docker's default network, which resolves no names.
const defaultBridge = "bridge"

// joinNamespaces resolves each "container:<x>" namespace to the ID of the
// discovered container x names (its ID, name, or an ID prefix of 12 or
// more), so a sidecar shares that container's key. An x not discovered
// keys the namespace as written, shared by whatever else joins it.
func joinNamespaces(ps []topology.Process) {
	for i := range ps {
		ref, ok := strings.CutPrefix(ps[i].Net.Namespace, "container:")
		if !ok {
			continue
		}
		ps[i].Net.Namespace = ref
		for _, q := range ps {
			if q.ID == ref || q.Name == ref || (len(ref) >= 12 && strings.HasPrefix(q.ID, ref)) {
				ps[i].Net.Namespace = q.ID
				break
			}
		}
	}
}
