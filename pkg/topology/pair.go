package topology

import (
	"slices"
	"strings"
)

// Topology is the processes grouped the way capacity sees them.
type Topology struct {
	// Workers run production executions, sorted by name: every
	// queue-mode worker, and every regular-mode main, which is the worker
	// of its own cluster.
	Workers []WorkerNode
	// Manual are the other mains (queue mode, or a mode that cannot be
	// read) with their runners, sorted by name: a queue-mode main runs
	// manual executions unless they are offloaded to the workers.
	Manual []WorkerNode
	// Pooled are the workers that take their jobs from a worker pool's
	// queue (jobs-<pool>), with their runners, sorted by name: the
	// production ceiling is the default queue's, and they serve none of it.
	Pooled   []WorkerNode
	Mains    []Process // every main, in either mode
	Webhooks []Process
	Probes   []Process
	// Unpaired are runners whose broker URI reaches no main or worker;
	// Target says what it reaches instead ("webhook n8n-webhook", or ""
	// for nothing).
	Unpaired []Attachment
	// Spread are the runners whose broker URI reaches several mains or
	// workers with nothing observed to tell which one serves them.
	Spread []Spread
}

// WorkerNode is one main or worker and its runners: its internal runner
// first, then those whose broker URI reaches it.
type WorkerNode struct {
	Worker  Process
	Runners []Attachment
}

// Attachment is a runner and how its broker URI was matched.
type Attachment struct {
	Runner Process
	Via    string // how the broker was reached: a Via… constant; "" when none was
	// Pairing says what filed it: its own connection seen, or its broker
	// URI reaching one broker; "" when it reached none.
	Pairing Pairing
	// Probe is the probe the runner dials in front of its broker ("" when
	// none), ProbeRoute the label of that probe's route (PROBE_NAME; "" when
	// unknown), and ProbeVia how its broker URI reached that probe.
	Probe, ProbeRoute, ProbeVia string
	Target                      string // its main's or worker's instance name; for an unpaired runner, what its broker URI reaches
}

// Route says how the runner reaches its broker: Via, or through a probe
// "probe <name> (<probe via>) → <via>".
func (a Attachment) Route() string {
	if a.Probe == "" {
		return a.Via
	}
	return "probe " + a.Probe + " (" + a.ProbeVia + ") → " + a.Via
}

// Pair groups processes into a Topology. A runner dialling a probe counts
// for the main or worker behind that probe.
func Pair(ps []Process) Topology {
	var t Topology
	var runners, brokers []Process
	for _, c := range ps {
		switch {
		case c.Role == RoleWorker && c.Settings.InPool():
			t.Pooled = append(t.Pooled, newNode(c))
		case c.Role == RoleWorker || c.Role == RoleMain && c.Settings.Regular():
			t.Workers = append(t.Workers, newNode(c))
		case c.Role == RoleMain:
			t.Manual = append(t.Manual, newNode(c))
		case c.Role == RoleWebhook:
			t.Webhooks = append(t.Webhooks, c)
		case c.Role == RoleProbe:
			t.Probes = append(t.Probes, c)
		case c.Role.RunsTasks():
			runners = append(runners, c)
		}
		if c.Role == RoleMain {
			t.Mains = append(t.Mains, c)
		}
		if c.Role.HostsBroker() {
			brokers = append(brokers, c)
		}
	}
	slices.SortFunc(t.Workers, byWorkerName)
	slices.SortFunc(t.Manual, byWorkerName)
	slices.SortFunc(t.Pooled, byWorkerName)
	slices.SortFunc(runners, byName)
	slices.SortFunc(brokers, byName)
	for _, r := range runners {
		t.attach(r, brokers)
	}
	return t
}

func byName(a, b Process) int { return strings.Compare(a.Name, b.Name) }

func byWorkerName(a, b WorkerNode) int { return byName(a.Worker, b.Worker) }

// Hosts are every main and worker with its runners: the production
// workers, the other mains, the pool workers.
func (t Topology) Hosts() [][]WorkerNode { return [][]WorkerNode{t.Workers, t.Manual, t.Pooled} }

// PoolIDs are the IDs of the pool workers and of their runners: processes
// whose work is not the default queue's.
func (t Topology) PoolIDs() map[string]bool {
	out := map[string]bool{}
	for _, w := range t.Pooled {
		out[w.Worker.ID] = true
		for _, a := range w.Runners {
			out[a.Runner.ID] = true
		}
	}
	return out
}

// node finds the main or worker with id.
func (t *Topology) node(id string) *WorkerNode {
	for _, nodes := range t.Hosts() {
		for i := range nodes {
			if nodes[i].Worker.ID == id {
				return &nodes[i]
			}
		}
	}
	return nil
}

// attach files runner r under the main or worker its broker URI reaches,
// as spread over several, or as unpaired. An observed connection (of the
// runner, or of the probe it dials) picks the broker among all; failing
// that, the probe's reported upstream peers pick one among those its
// route reaches. A runner whose broker URI is unknown reaches nothing.
func (t *Topology) attach(r Process, brokers []Process) {
	if !r.Settings.Broker.Known() {
		t.Unpaired = append(t.Unpaired, Attachment{Runner: r})
		return
	}
	from, ep, a := r, r.Settings.Broker.Value, Attachment{Runner: r}
	if p, route, via, ok := t.viaProbe(r); ok {
		from, ep, a.Probe, a.ProbeRoute, a.ProbeVia = p, route.Upstream, p.Name, route.Name, via
	}
	hits, pairing := reachedBrokers(from, ep, brokers), PairingName
	if b, ok := observedBroker(from, brokers); ok {
		hits, pairing = []hit{{b, viaOf(hits, b)}}, PairingObserved
	} else if h, ok := probedBroker(from, hits); ok && a.Probe != "" {
		hits, pairing = []hit{h}, PairingProbe
	}
	var nodes []hit
	for _, h := range hits {
		if t.node(h.broker.ID) != nil {
			nodes = append(nodes, h)
		}
	}
	switch {
	case len(nodes) > 1:
		a.Via, a.Pairing = nodes[0].via, PairingAmbiguous
		s := Spread{Attachment: a}
		for _, h := range nodes {
			s.Candidates = append(s.Candidates, h.broker)
		}
		t.Spread = append(t.Spread, s)
	case len(nodes) == 1:
		a.Via, a.Pairing, a.Target = nodes[0].via, pairing, nodes[0].broker.InstanceName()
		n := t.node(nodes[0].broker.ID)
		n.Runners = append(n.Runners, a)
	case len(hits) > 0:
		b := hits[0].broker
		a.Via, a.Pairing, a.Target = hits[0].via, pairing, string(b.Role)+" "+b.InstanceName()
		t.Unpaired = append(t.Unpaired, a)
	default:
		t.Unpaired = append(t.Unpaired, a)
	}
}

// viaOf is how the dialled address reached b, or ViaIP when it did not
// and only the observed connection did.
func viaOf(hits []hit, b Process) string {
	for _, h := range hits {
		if h.broker.ID == b.ID {
			return h.via
		}
	}
	return ViaIP
}

// viaProbe finds the probe listener that r's broker URI dials.
func (t *Topology) viaProbe(r Process) (Process, Route, string, bool) {
	for _, p := range t.Probes {
		for _, route := range p.Settings.Routes.Value {
			if via, ok := reaches(r, r.Settings.Broker.Value, p, route.Listen.Port); ok && listensOn(route.Listen, via) {
				return p, route, via, true
			}
		}
	}
	return Process{}, Route{}, "", false
}

// listensOn rejects a loopback match when the probe listens on a specific
// non-loopback address the runner did not dial.
func listensOn(listen Endpoint, via string) bool {
	if via != ViaHostPort && via != ViaNetns {
		return true
	}
	return isAny(listen.Host) || isLoopback(listen.Host)
}
