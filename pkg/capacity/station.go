package capacity

import (
	"math"
	"slices"
	"strings"
)

// MaxPopulation caps the number of users an MVA curve goes up to: the work
// grows with N times the stations' servers.
const MaxPopulation = 10000

// MaxStations caps the stations of one network.
const MaxStations = 64

// Station is a resource as a queueing-network station: m servers, each
// execution holding one of them for D seconds of service. Below one server
// (a fractional CPU quota) it is one server running at m of its speed, so an
// execution holds it D/m seconds.
type Station struct {
	Name    string
	Servers float64 // m > 0
	Demand  float64 // D ≥ 0: seconds of one server's time per execution
	// Spread marks a station whose demand one execution can spread over
	// several servers at once: CPU cores, which n8n's processes (and the
	// host's others) use side by side. Alone, an execution then holds it
	// at least D/m, not D. A slot is held by one execution whole.
	Spread bool
	// RunToEnd marks a thread that runs each execution's demand to its
	// end, one at a time and first come first served, the demands alike:
	// a task runner's thread, which runs a Code task's JavaScript without
	// a break. An execution that arrives while another is served waits
	// for the rest of that one's demand, half of it on average, where a
	// thread that interleaves many short pieces of work (n8n's main or a
	// worker) shares itself out as processor sharing does.
	RunToEnd bool
}

// Hold is how long one execution alone holds the station: D, or D/m when
// m < 1.
func (s Station) Hold() float64 { return s.Demand / math.Min(s.Servers, 1) }

// MinHold is the shortest time one execution alone can spend at the
// station: D/m when its demand spreads over the servers, else Hold.
func (s Station) MinHold() float64 {
	if s.Spread && s.Servers > 1 {
		return s.Demand / s.Servers
	}
	return s.Hold()
}

// Ceiling is m/D, the most executions per second the station completes.
func (s Station) Ceiling() float64 { return s.Servers / s.Demand }

// normal is the same station with at least one server: m < 1 becomes one
// server of demand D/m, which has the same service rate at every queue
// length.
func (s Station) normal() Station {
	if s.Servers < 1 {
		s.Servers, s.Demand = 1, s.Hold()
	}
	return s
}

// within is the station as Overlapping queues for it when one execution
// alone takes latency seconds. A spread station whose demand exceeds the
// latency keeps D/latency of its servers busy through the whole latency,
// so its m servers hold m·latency/D such executions at once, each for the
// latency: the same ceiling m/D, but executions meet there before m of
// them run. Any other station is unchanged.
func (s Station) within(latency float64) Station {
	if !s.Spread || s.Demand <= latency {
		return s
	}
	s.Servers, s.Demand = s.Servers*latency/s.Demand, latency
	return s
}

// HeldAtMost is the network as one execution alone meets it when its
// latency is latency: a station that is not spread holds it at most that
// long. A slot's hold measured under load holds the waits its execution
// met elsewhere (a job keeps its worker slot while it waits for a core or
// a runner slot), which the MVA adds itself; alone, no execution holds a
// slot longer than its whole latency. Spread stations are unchanged
// (Overlapping queues them within the latency).
func (net Network) HeldAtMost(latency float64) Network {
	out := Network{Think: net.Think, Stations: slices.Clone(net.Stations)}
	for k, s := range out.Stations {
		if !s.Spread && s.Hold() > latency {
			out.Stations[k].Demand = latency * math.Min(s.Servers, 1)
		}
	}
	return out
}

// Network is a closed system: every user cycles through the stations and
// then thinks for Think seconds before its next request.
type Network struct {
	Stations []Station
	Think    float64 // Z ≥ 0 seconds
}

// Validate rejects a network the MVA cannot solve.
func (net Network) Validate() error {
	if len(net.Stations) == 0 || len(net.Stations) > MaxStations {
		return invalid("a network needs 1 to %d stations, got %d", MaxStations, len(net.Stations))
	}
	if !nonNegative(net.Think) {
		return invalid("think time must be a non-negative number of seconds, got %v", net.Think)
	}
	seen := make(map[string]bool, len(net.Stations))
	for _, s := range net.Stations {
		if err := s.validate(); err != nil {
			return err
		}
		if seen[s.Name] {
			return invalid("station %s: named twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func (s Station) validate() error {
	if err := validName(s.Name); err != nil {
		return err
	}
	if !positive(s.Servers) {
		return invalid("station %s: servers must be a positive number, got %v", s.Name, s.Servers)
	}
	if !nonNegative(s.Demand) {
		return invalid("station %s: demand must be a non-negative number of seconds, got %v", s.Name, s.Demand)
	}
	return nil
}

// TotalHold is Σ Hold: one execution's latency when the stations are
// visited one after another and nobody waits.
func (net Network) TotalHold() float64 {
	var sum float64
	for _, s := range net.Stations {
		sum += s.Hold()
	}
	return sum
}

// MaxHold is the longest Hold of any station.
func (net Network) MaxHold() float64 {
	var top float64
	for _, s := range net.Stations {
		top = math.Max(top, s.Hold())
	}
	return top
}

// MinLatency is the longest MinHold: one execution alone takes at least
// that, and Overlapping accepts no shorter latency.
func (net Network) MinLatency() float64 {
	var top float64
	for _, s := range net.Stations {
		top = math.Max(top, s.MinHold())
	}
	return top
}

// Ceiling is min m/D over the stations with a demand; 0 when none has one.
func (net Network) Ceiling() float64 {
	low := math.Inf(1)
	for _, s := range net.Stations {
		if s.Demand > 0 {
			low = math.Min(low, s.Ceiling())
		}
	}
	if math.IsInf(low, 1) {
		return 0
	}
	return low
}

// Stations turns the resources with a known, positive demand into MVA
// stations, in Resources order; CPU stations spread. With the host's cores
// among them, a process thread's station has its cores alone (Alone): its
// wait for a core is the wait the MVA gives cpu:host, and holding it at
// the share it ran under this load would count that wait twice.
//
// A task runner's thread (ProcessCPU(…, ProcessRunner)) runs to end, and
// holds each task through that task's waits for a core: the next task
// starts only once it ends. Its station keeps the share it ran (its hold
// is the task's wall time), and cpu:host leaves out its CPU seconds,
// whose waits for a core that hold already holds.
func (b Bounds) Stations() []Station {
	host := slices.ContainsFunc(b.Resources, func(r ResourceBound) bool { return r.Name == HostCPU && r.Known() && r.Demand > 0 })
	var out []Station
	var held float64 // CPU seconds of run-to-end threads
	for _, r := range b.Resources {
		if !r.Known() || r.Demand <= 0 {
			continue
		}
		s := Station{Name: r.Name, Servers: r.Servers, Demand: r.Demand, Spread: r.Kind == KindCPU}
		s.RunToEnd = s.Spread && strings.HasSuffix(r.Name, "/"+ProcessRunner)
		switch {
		case host && s.RunToEnd:
			held += r.Demand
		case host && r.Alone > 0:
			s.Servers = r.Alone
		}
		out = append(out, s)
	}
	for k, s := range out {
		if s.Name == HostCPU {
			out[k].Demand = math.Max(0, s.Demand-held)
		}
	}
	return out
}
