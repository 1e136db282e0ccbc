package dockerstats

import (
	"slices"
	"strings"
)

// Topology is the containers grouped the way capacity sees them.
type Topology struct {
	Workers  []WorkerNode // sorted by name
	Mains    []Container
	Webhooks []Container
	Probes   []Container
	// Unpaired are runners whose broker URI reaches no worker; Target says
	// what it reaches instead ("main n8n-main", or "" for nothing).
	Unpaired []Attachment
}

// WorkerNode is one worker and the runners whose broker URI reaches it.
type WorkerNode struct {
	Worker  Container
	Runners []Attachment
}

// Attachment is a runner and how its broker URI was matched.
type Attachment struct {
	Runner Container
	Via    string // "name", "service", "alias", "hostname", "ip", "host-port", "netns"; prefixed "probe <name> → " through a probe
	Target string
}

// Pair groups containers into a Topology. A runner dialling a probe counts
// for the worker behind that probe.
func Pair(cs []Container) Topology {
	var t Topology
	var runners, brokers []Container
	for _, c := range cs {
		switch {
		case c.Role == RoleWorker:
			t.Workers = append(t.Workers, WorkerNode{Worker: c})
		case c.Role == RoleMain:
			t.Mains = append(t.Mains, c)
		case c.Role == RoleWebhook:
			t.Webhooks = append(t.Webhooks, c)
		case c.Role == RoleProbe:
			t.Probes = append(t.Probes, c)
		case c.Role.RunsTasks():
			runners = append(runners, c)
		}
		if c.Role.HostsBroker() {
			brokers = append(brokers, c)
		}
	}
	slices.SortFunc(t.Workers, func(a, b WorkerNode) int { return strings.Compare(a.Worker.Name, b.Worker.Name) })
	slices.SortFunc(runners, byName)
	slices.SortFunc(brokers, byName)
	for _, r := range runners {
		t.attach(r, brokers)
	}
	return t
}

func byName(a, b Container) int { return strings.Compare(a.Name, b.Name) }

func (t *Topology) attach(r Container, brokers []Container) {
	from, ep, prefix := r, r.Broker, ""
	if p, route, via, ok := t.viaProbe(r); ok {
		from, ep, prefix = p, route.Upstream, "probe "+p.Name+" ("+via+") → "
	}
	for _, b := range brokers {
		via, ok := reaches(from, ep, b, b.BrokerPort)
		if !ok {
			continue
		}
		if b.Role != RoleWorker {
			t.Unpaired = append(t.Unpaired, Attachment{Runner: r, Via: prefix + via, Target: string(b.Role) + " " + b.Name})
			return
		}
		for i := range t.Workers {
			if t.Workers[i].Worker.ID == b.ID {
				t.Workers[i].Runners = append(t.Workers[i].Runners, Attachment{Runner: r, Via: prefix + via, Target: b.Name})
				return
			}
		}
	}
	t.Unpaired = append(t.Unpaired, Attachment{Runner: r, Via: prefix})
}

// viaProbe finds the probe listener that r's broker URI dials.
func (t *Topology) viaProbe(r Container) (Container, Route, string, bool) {
	for _, p := range t.Probes {
		for _, route := range p.Routes {
			if via, ok := reaches(r, r.Broker, p, route.Listen.Port); ok && listensOn(route.Listen, r.Broker, via) {
				return p, route, via, true
			}
		}
	}
	return Container{}, Route{}, "", false
}

// listensOn rejects a loopback match when the probe listens on a specific
// non-loopback address the runner did not dial.
func listensOn(listen, dialled Endpoint, via string) bool {
	if via != "host-port" && via != "netns" {
		return true
	}
	return isAny(listen.Host) || isLoopback(listen.Host)
}

// reaches reports whether dialling ep from container from lands on
// container to's port, and by which kind of match.
func reaches(from Container, ep Endpoint, to Container, port int) (string, bool) {
	if ep.Port != port {
		return "", false
	}
	h := ep.Host
	if isLoopback(h) {
		switch {
		case from.HostNetwork() && to.HostNetwork():
			return "host-port", true
		case sharesNetns(from, to):
			return "netns", true
		}
		return "", false
	}
	switch {
	case h == strings.ToLower(to.Name):
		return "name", true
	case to.Service != "" && h == to.Service:
		return "service", true
	case slices.Contains(to.Aliases, h):
		return "alias", true
	case to.Hostname != "" && h == to.Hostname:
		return "hostname", true
	case slices.Contains(to.IPs, h):
		return "ip", true
	}
	return "", false
}

// sharesNetns covers sidecars started with --network container:<other>.
func sharesNetns(a, b Container) bool {
	joined := func(x, y Container) bool {
		target, ok := strings.CutPrefix(x.NetworkMode, "container:")
		return ok && (target == y.ID || target == y.Name || (len(target) >= 12 && strings.HasPrefix(y.ID, target)))
	}
	return joined(a, b) || joined(b, a)
}

func isLoopback(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

func isAny(h string) bool { return h == "0.0.0.0" || h == "::" || h == "" }
