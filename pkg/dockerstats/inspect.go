package dockerstats

import (
	"strings"

	"github.com/docker/docker/api/types/container"
)

// ComposeServiceLabel is the label compose puts on every service container.
const ComposeServiceLabel = "com.docker.compose.service"

// FromInspect turns an inspect response into a Container. ok is false for
// containers that are not n8n's. Env values outside the whitelist are never
// copied; the caller should drop the response right after.
func FromInspect(in container.InspectResponse) (c Container, ok bool) {
	if in.ContainerJSONBase == nil || in.Config == nil {
		return Container{}, false
	}
	values, keys := readEnv(in.Config.Env)
	argv := append([]string{in.Path}, in.Args...)
	role := Classify(Spec{Argv: argv, Image: in.Config.Image, EnvKeys: keys})
	if role == RoleNone {
		return Container{}, false
	}
	c = Container{
		ID:       in.ID,
		Name:     strings.TrimPrefix(in.Name, "/"),
		Role:     role,
		Hostname: strings.ToLower(in.Config.Hostname),
		Service:  strings.ToLower(in.Config.Labels[ComposeServiceLabel]),
	}
	c.addState(in)
	c.addNetworks(in)
	s := &settings{values: values}
	c.addSettings(s, argv)
	c.Problems = s.problems
	return c, true
}

func (c *Container) addState(in container.InspectResponse) {
	c.RestartCount = in.RestartCount
	if in.State != nil {
		c.OOMKilled = in.State.OOMKilled
		c.Running = in.State.Running || in.State.Restarting
	}
	if in.HostConfig != nil {
		c.MemoryLimit = in.HostConfig.Memory
		c.NetworkMode = string(in.HostConfig.NetworkMode)
		c.CgroupParent = in.HostConfig.CgroupParent
	}
}

func (c *Container) addNetworks(in container.InspectResponse) {
	if in.NetworkSettings == nil {
		return
	}
	for _, ep := range in.NetworkSettings.Networks {
		if ep == nil {
			continue
		}
		for _, a := range ep.Aliases {
			c.Aliases = append(c.Aliases, strings.ToLower(a))
		}
		if ep.IPAddress != "" {
			c.IPs = append(c.IPs, ep.IPAddress)
		}
		if ep.GlobalIPv6Address != "" {
			c.IPs = append(c.IPs, ep.GlobalIPv6Address)
		}
	}
}

func (c *Container) addSettings(s *settings, argv []string) {
	switch {
	case c.Role == RoleWorker:
		c.Concurrency = s.workerConcurrency(argv)
	case c.Role.RunsTasks():
		c.RunnerLimit = s.positiveInt("N8N_RUNNERS_MAX_CONCURRENCY", DefaultRunnerLimit)
		c.Broker = s.brokerURI()
	case c.Role == RoleProbe:
		c.Routes = s.probeRoutes()
	}
	if c.Role.HostsBroker() {
		c.BrokerPort = s.positiveInt("N8N_RUNNERS_BROKER_PORT", DefaultBrokerPort)
	}
	if c.Role == RoleMain {
		c.N8nPort = s.positiveInt("N8N_PORT", DefaultN8nPort)
	}
}
