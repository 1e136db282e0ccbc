package topology

import "slices"

// Pairing says what filed a runner under its main or worker.
type Pairing string

// The pairings, from the strongest evidence to none.
const (
	// PairingObserved: one of its established connections ends at the
	// broker's IP and port (Process.Peers).
	PairingObserved Pairing = "observed"
	// PairingProbe: the probe it dials reported its upstream connections
	// ending at the broker's IP and port (Process.Upstreams), and at no
	// other broker its route reaches. The kernel's socket table wins over
	// the probe's word: observed is tried first.
	PairingProbe Pairing = "probe"
	// PairingName: its broker URI reaches that broker and no other.
	PairingName Pairing = "name"
	// PairingAmbiguous: its broker URI reaches several brokers (a name
	// that Docker's DNS or a Service spreads over replicas) and nothing
	// observed which one it dialled.
	PairingAmbiguous Pairing = "ambiguous"
)

// Spread is a runner whose pairing is ambiguous and the mains and workers
// it may serve.
type Spread struct {
	Attachment
	// Candidates are the mains and workers its broker URI reaches,
	// sorted by name.
	Candidates []Process
}

// SpreadOver reports whether a spread runner may serve the main or worker
// with id.
func (t Topology) SpreadOver(id string) bool {
	for _, s := range t.Spread {
		for _, c := range s.Candidates {
			if c.ID == id {
				return true
			}
		}
	}
	return false
}

// hit is a broker that a dialled address reaches, and how.
type hit struct {
	broker Process
	via    string
}

// reachedBrokers lists every broker whose port dialling ep from process
// from lands on, in the order of brokers.
func reachedBrokers(from Process, ep Endpoint, brokers []Process) []hit {
	var out []hit
	for _, b := range brokers {
		if !b.Settings.BrokerPort.Known() {
			continue
		}
		if via, ok := reaches(from, ep, b, b.Settings.BrokerPort.Value); ok {
			out = append(out, hit{b, via})
		}
	}
	return out
}

// observedBroker finds the broker one of from's established connections
// ends at: a peer whose port is the broker's and whose host is one of its
// IPs. Loopback peers say nothing a name match does not.
func observedBroker(from Process, brokers []Process) (Process, bool) {
	for _, peer := range from.Peers {
		if isLoopback(peer.Host) {
			continue
		}
		for _, b := range brokers {
			if b.Settings.BrokerPort.Known() && b.Settings.BrokerPort.Value == peer.Port && b.Net.hasIP(peer.Host) {
				return b, true
			}
		}
	}
	return Process{}, false
}

// probedBroker finds the one broker among hits that probe's upstream
// connections end at, by the rule of observedBroker. Peers at no broker
// (a Kubernetes Service's ClusterIP), or at several, pick none.
func probedBroker(probe Process, hits []hit) (hit, bool) {
	var found []hit
	for _, peer := range probe.Upstreams {
		if isLoopback(peer.Host) {
			continue
		}
		for _, h := range hits {
			b := h.broker
			if b.Settings.BrokerPort.Value == peer.Port && b.Net.hasIP(peer.Host) &&
				!slices.ContainsFunc(found, func(f hit) bool { return f.broker.ID == b.ID }) {
				found = append(found, h)
			}
		}
	}
	if len(found) != 1 {
		return hit{}, false
	}
	return found[0], true
}

// hasIP reports whether ip is one of the network's IP addresses.
func (n Network) hasIP(ip string) bool {
	for _, a := range n.Addresses {
		if a.Via == ViaIP && a.Host == ip {
			return true
		}
	}
	return false
}
