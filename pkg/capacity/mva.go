package capacity

import (
	"math"
	"slices"
)

// StationPoint is one station's state at one population.
type StationPoint struct {
	Name        string
	Utilization float64 // X·D/m: the busy fraction of its servers
	Queue       float64 // executions holding it or waiting for it: X × (hold + wait)
	Wait        float64 // seconds an execution waits for a free server
}

// Point is the predicted state of the closed system at N users.
type Point struct {
	N          int
	Throughput float64 // X(N), executions per second
	Response   float64 // seconds from request to response: N/X(N) − think time
	Stations   []StationPoint
	Largest    string // the station with the largest queue; the first on a tie
}

// MaxWork caps the terms one MVA curve may sum (convolution terms for Exact,
// queue-length probabilities for Overlapping), a few seconds of work on a
// small machine: a network past it gets ErrInvalid instead.
const MaxWork = 50_000_000

// waiter gives the mean wait W_k(n) of a user arriving at multi-server
// station k while the other n−1 users are in the system and q of them are
// at k (the arrival theorem), and the work spent so far.
type waiter interface {
	wait(k, n int, s Station, q float64) float64
	work() int
}

// Exact is exact single-class MVA (Reiser & Lavenberg 1980) of net, for
// every population 1..maxN: each user visits the stations one after another
// and then thinks. Single-server stations wait D·Q(n−1); multi-server
// stations use their exact marginal queue-length probabilities.
func Exact(net Network, maxN int) ([]Point, error) {
	if err := checkRun(net, maxN); err != nil {
		return nil, err
	}
	if net.Think+net.TotalHold() == 0 {
		return nil, invalid("a cycle of zero seconds has no throughput: give a think time or a demand")
	}
	st := normalized(net)
	if w := exactWork(st, maxN); w > MaxWork {
		return nil, tooMuchWork(w)
	}
	return solve(net, st, net.TotalHold(), maxN, newExactMarginals(st, net.Think, maxN), MaxWork)
}

// Overlapping is MVA for stations whose holding times overlap, as in n8n,
// where a job holds its worker slot for the whole of its runner slot and
// much of its CPU time. latency is one execution's end-to-end latency when
// it runs alone (think time excluded); it must be at least the network's
// MinLatency. At n users
//
//	R(n) = Z + latency + Σ_k W_k(n),  X(n) = n / R(n),  Q_k(n) = X(n)·(hold_k + W_k(n))
//
// where W_k(n) is the wait at station k by the arrival theorem. A
// single-server station waits D·Q_k(n−1), as in exact MVA. A multi-server
// station waits as in the finite-source queue M/M/m//(n−1) whose mean queue
// length is Q_k(n−1). See the package documentation for what this assumes.
func Overlapping(net Network, latency float64, maxN int) ([]Point, error) {
	if err := checkRun(net, maxN); err != nil {
		return nil, err
	}
	if !positive(latency) || latency < net.MinLatency() {
		return nil, invalid("latency must be a positive number of seconds, at least %v (the longest a station must hold one execution), got %v", net.MinLatency(), latency)
	}
	st := normalized(net)
	for k := range st {
		st[k] = st[k].within(latency)
	}
	return solve(net, st, latency, maxN, newFittedMarginals(len(net.Stations)), MaxWork)
}

func tooMuchWork(w int) error {
	return invalid("the curve needs over %d steps (%d counted): ask for fewer users, stations or servers", MaxWork, w)
}

func checkRun(net Network, maxN int) error {
	if maxN < 1 || maxN > MaxPopulation {
		return invalid("population must be 1 to %d users, got %d", MaxPopulation, maxN)
	}
	return net.Validate()
}

func normalized(net Network) []Station {
	st := make([]Station, len(net.Stations))
	for k, s := range net.Stations {
		st[k] = s.normal()
	}
	return st
}

// solve runs the recursion R(n) = Z + latency + Σ W_k(n) for n = 1..maxN,
// and stops with ErrInvalid once w has done more than budget work.
func solve(net Network, st []Station, latency float64, maxN int, w waiter, budget int) ([]Point, error) {
	q := make([]float64, len(st))
	waits := make([]float64, len(st))
	u := make([]float64, len(st))
	out := make([]Point, 0, maxN)
	b := lowestCeiling(st)
	for n := 1; n <= maxN; n++ {
		r := net.Think + latency
		for k, s := range st {
			waits[k] = stationWait(w, k, n, s, q[k], u[k])
			r += waits[k]
		}
		x := float64(n) / r
		if b >= 0 && x > st[b].Ceiling() {
			// A run-to-end wait places fewer users in the queues than there
			// are once the thread nears saturation; the rest wait at the
			// bottleneck, and X stays within the utilization law.
			x = st[b].Ceiling()
			waits[b] += float64(n)/x - r
		}
		for k, s := range st {
			q[k] = x * (s.Demand + waits[k])
			u[k] = x * s.Demand
		}
		out = append(out, point(net, n, x, q, waits))
		if w.work() > budget {
			return nil, tooMuchWork(w.work())
		}
	}
	return out, nil
}

// lowestCeiling is the index of the station with the lowest ceiling m/D
// among those with a demand, when a run-to-end station is among them;
// else -1 (the other waits keep X(n) within the ceiling themselves).
func lowestCeiling(st []Station) int {
	if !slices.ContainsFunc(st, func(s Station) bool { return s.RunToEnd }) {
		return -1
	}
	b := -1
	for k, s := range st {
		if s.Demand > 0 && (b < 0 || s.Ceiling() < st[b].Ceiling()) {
			b = k
		}
	}
	return b
}

// stationWait is W_k(n): zero while n users fit on the servers. A single
// server waits D·Q_k(n−1), the exponential case and processor sharing's
// exact one; one that runs its executions to their end, alike, waits
// D·(Q_k(n−1) − U_k(n−1)/2): the whole demand of each execution queued,
// and half that of the one in service (the residual of a constant demand;
// Reiser 1981). u is U_k(n−1), X(n−1)·D_k.
func stationWait(w waiter, k, n int, s Station, q, u float64) float64 {
	switch {
	case s.Demand == 0 || float64(n) <= s.Servers:
		return 0
	case s.Servers == 1 && s.RunToEnd:
		return s.Demand * (q - u/2)
	case s.Servers == 1:
		return s.Demand * q
	default:
		return w.wait(k, n, s, q)
	}
}

func point(net Network, n int, x float64, q, waits []float64) Point {
	p := Point{N: n, Throughput: x, Response: float64(n)/x - net.Think}
	p.Stations = make([]StationPoint, len(q))
	top := -1.0
	for k, s := range net.Stations {
		p.Stations[k] = StationPoint{Name: s.Name, Utilization: x * s.Demand / s.Servers, Queue: q[k], Wait: waits[k]}
		if q[k] > top {
			top, p.Largest = q[k], s.Name
		}
	}
	return p
}

// fittedMarginals keeps each station's last log y (NaN before the first
// fit) as the next fit's start.
type fittedMarginals struct {
	logY  []float64
	spent int
}

func newFittedMarginals(k int) *fittedMarginals {
	f := &fittedMarginals{logY: make([]float64, k)}
	for i := range f.logY {
		f.logY[i] = math.NaN()
	}
	return f
}

func (f *fittedMarginals) wait(k, n int, s Station, q float64) float64 {
	fs, t, work := fitFiniteSource(n-1, s.Servers, q, f.logY[k])
	f.logY[k] = t
	f.spent += work
	return fs.wait(s.Servers, s.Demand)
}

func (f *fittedMarginals) work() int { return f.spent }
