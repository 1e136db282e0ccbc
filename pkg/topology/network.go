package topology

import (
	"slices"
	"strings"
)

// How a dialled address was matched to a process, as Attachment.Via says.
const (
	ViaName     = "name"      // Docker container name
	ViaService  = "service"   // compose service; Kubernetes Service
	ViaAlias    = "alias"     // Docker network alias
	ViaHostname = "hostname"  // the process's hostname
	ViaIP       = "ip"        // one of its IPs
	ViaHostPort = "host-port" // loopback, both on the host network
	ViaNetns    = "netns"     // loopback in a shared network namespace
	ViaInternal = "internal"  // the host's own child process (N8N_RUNNERS_MODE=internal)
)

// Network is what pairing knows of where a process can be reached and
// where it dials from.
type Network struct {
	// Host is true on the host's network (Docker's --network host, a
	// hostNetwork pod): loopback reaches every other such process.
	Host bool
	// Namespace keys a network namespace that several processes share:
	// loopback reaches every process with the same key. Docker: the ID of
	// the container whose namespace it uses (its own, or the one named in
	// --network container:<x>); Kubernetes: "<namespace>/<pod>". "" = none.
	Namespace string
	// Scope is where the process resolves names from, matched against
	// Address.Scope: the Kubernetes namespace. Docker leaves it empty.
	Scope string
	// Networks are the Docker networks the process is attached to, by
	// name: an Address with a Network resolves only from a process that
	// shares it.
	Networks []string
	// Addresses are the names and IPs that reach the process, in the
	// order pairing tries them.
	Addresses []Address
}

// Address is a host name or IP that reaches a process.
type Address struct {
	Host string // lower-case
	Via  string // ViaName, ViaService, …
	// Scope limits the name to dialling processes with the same
	// Network.Scope (a Kubernetes Service's short name resolves only in
	// its namespace); "" = from everywhere.
	Scope string
	// Ports maps a dialled port to the process's port, as a Kubernetes
	// Service's port and targetPort do; nil = the same port.
	Ports map[int]int
	// Network is the Docker network the name or IP belongs to: only a
	// process on that network resolves the name (Docker's embedded DNS
	// answers per network); an IP is also reached from the host's
	// network. "" = from everywhere.
	Network string
}

// IP returns the first address that is an IP, or "".
func (n Network) IP() string {
	for _, a := range n.Addresses {
		if a.Via == ViaIP {
			return a.Host
		}
	}
	return ""
}

// reaches reports whether dialling ep from process from lands on process
// to's port, and by which kind of match.
func reaches(from Process, ep Endpoint, to Process, port int) (string, bool) {
	if isLoopback(ep.Host) {
		switch {
		case ep.Port != port:
			return "", false
		case from.Net.Host && to.Net.Host:
			return ViaHostPort, true
		case from.Net.Namespace != "" && from.Net.Namespace == to.Net.Namespace:
			return ViaNetns, true
		}
		return "", false
	}
	for _, a := range to.Net.Addresses {
		if a.Host != ep.Host || (a.Scope != "" && a.Scope != from.Net.Scope) || !a.resolvesFrom(from.Net) {
			continue
		}
		if p, ok := a.target(ep.Port); ok && p == port {
			return a.Via, true
		}
	}
	return "", false
}

// resolvesFrom reports whether a process on n reaches the address: one
// of a Docker network from that network, an IP also from the host's.
func (a Address) resolvesFrom(n Network) bool {
	return a.Network == "" || slices.Contains(n.Networks, a.Network) || a.Via == ViaIP && n.Host
}

// target is the process's port that dialling port lands on.
func (a Address) target(port int) (int, bool) {
	if a.Ports == nil {
		return port, true
	}
	p, ok := a.Ports[port]
	return p, ok
}

func isLoopback(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

func isAny(h string) bool { return h == "0.0.0.0" || h == "::" || h == "" }
