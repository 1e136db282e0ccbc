package main

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/capacity"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

// otherCPU is the --cpu entry that counts only towards the host: CPU no
// n8n process spends (PostgreSQL, Redis, the kernel).
const otherCPU = "other"

// cpuResources turns --cpu and --cores into resources: the host's cores
// with every entry's demand summed, then --process-cores per named
// process.
func (f planFlags) cpuResources() ([]capacity.Resource, error) {
	if len(f.cpu) == 0 {
		if f.cores != 0 {
			return nil, errors.New("--cores needs --cpu")
		}
		return nil, nil
	}
	if !(f.cores > 0) || math.IsInf(f.cores, 1) {
		return nil, fmt.Errorf("--cores is required with --cpu: the host's online CPUs, e.g. 2 (got %v)", f.cores)
	}
	if !(f.processCores > 0) || f.processCores > f.cores {
		return nil, fmt.Errorf("--process-cores must be above 0 and at most --cores (%v), got %v", f.cores, f.processCores)
	}
	host := capacity.Resource{Name: capacity.HostCPU, Kind: capacity.KindCPU, Servers: f.cores}
	out := []capacity.Resource{host}
	for _, d := range f.cpu {
		out[0].Demand += d.seconds
		if d.name == otherCPU {
			continue
		}
		if d.name == "host" {
			return nil, errors.New("--cpu: host is the sum of the entries; name the processes (main, worker, runner) and other")
		}
		out = append(out, capacity.Resource{Name: capacity.ContainerCPU(d.name), Kind: capacity.KindCPU, Servers: f.processCores, Demand: d.seconds})
	}
	return out, nil
}

// addBounds adds the bound table over the slot and CPU resources and the
// MVA curve for N = 1 … max(--vus, about twice the knee).
func (res *planResult) addBounds(f planFlags, svc capacity.ServiceTime) error {
	if f.latency < 0 {
		return fmt.Errorf("--latency must be positive, got %v", f.latency)
	}
	cpu, err := f.cpuResources()
	if err != nil {
		return err
	}
	var slots []capacity.Resource
	if f.workerConcurrency > 0 && len(f.runnerLimits) > 0 {
		v, err := capacity.Evaluate(oneWorkerCluster(f.workerConcurrency, f.runnerLimits, svc))
		if err != nil {
			return err
		}
		slots = capacity.SlotResources(v)
	}
	b, err := capacity.Combine(slots, cpu)
	if err != nil {
		return fmt.Errorf("--cpu: %w", err)
	}
	res.Bounds = newBoundsJSON(b, f.cores)
	net := capacity.Network{Stations: b.Stations()}
	if len(net.Stations) == 0 {
		if f.latency > 0 {
			return errors.New("--latency needs a resource with a demand: give --cpu, or --service-time with --worker-concurrency and --runner-limit")
		}
		return nil
	}
	mva, err := mvaCurve(net, f)
	if err != nil {
		return err
	}
	res.MVA = mva
	return nil
}

// mvaCurve runs capacity.Overlapping up to the larger of the biggest --vus
// and twice the knee N* = latency × ceiling.
func mvaCurve(net capacity.Network, f planFlags) (*mvaJSON, error) {
	latency, source := f.latency.Seconds(), "--latency"
	if f.latency == 0 {
		latency, source = net.MaxHold(), "the longest hold"
	}
	if latency < net.MinLatency() {
		return nil, fmt.Errorf("--latency %v is below %s, the longest a resource must hold one request: one request alone takes at least that", f.latency, report.FormatSeconds(net.MinLatency()))
	}
	a, err := capacity.NewAsymptotic(latency, net.Ceiling())
	if err != nil {
		return nil, fmt.Errorf("--latency: %w", err)
	}
	top := max(1, int(math.Ceil(2*a.Knee())))
	if len(f.vus) > 0 {
		top = max(top, slices.Max(f.vus))
	}
	if top > capacity.MaxPopulation {
		return nil, fmt.Errorf("--vus: the MVA curve goes to at most %d users, asked for %d", capacity.MaxPopulation, top)
	}
	curve, err := capacity.Overlapping(net, latency, top)
	if err != nil {
		return nil, fmt.Errorf("--cpu/--latency: %w", err)
	}
	return newMVAJSON(curve, a, source), nil
}
