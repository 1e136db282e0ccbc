package topology

// Pairing says what filed a runner under its main or worker.
type Pairing string

// The pairings, from the strongest evidence to none.
const (
	// PairingObserved: one of its established connections ends at the
	// broker's IP and port (Process.Peers).
	PairingObserved Pairing = "observed"
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

// hasIP reports whether ip is one of the network's IP addresses.
func (n Network) hasIP(ip string) bool {
	for _, a := range n.Addresses {
		if a.Via == ViaIP && a.Host == ip {
			return true
		}
	}
	return false
}
