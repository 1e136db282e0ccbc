package capacity

import "fmt"

// UnknownServiceTime is the reason slot demands are unknown when the
// verdict has no job and task time.
const UnknownServiceTime = "job and task time unknown"

// SlotResources returns the worker-slot and runner-slot resource of every
// worker in v that has a runner, in worker order, worker slots first.
// Workers without a runner run no execution and are left out (v still
// counts them in WorkersWithoutRunner); a worker without a slot limit has
// no worker-slot resource.
//
// The demands are per cluster execution (the utilization law): at
// saturation each worker completes its own ceiling, so worker w runs the
// share s_w = ceiling_w / Σ ceilings of all executions, and its slots'
// demands are job×s_w and task×s_w. The smallest m/D over the result is
// then v.Ceiling, and with one worker the ceilings are W/job and R/task.
//
// With spread runners (v.Range) which worker holds which runner slots is
// not known: one resource stands for every slot, the effective
// concurrency that holds whatever the spread, with the demand that gives
// the lowest ceiling.
func SlotResources(v Verdict) []Resource {
	if v.Range != nil {
		return spreadSlots(v)
	}
	var out []Resource
	for i, w := range v.Workers {
		if w.Bottleneck == BottleneckNone {
			continue
		}
		name := workerLabel(i, w.Name)
		ws := Resource{Name: WorkerSlots(name), Kind: KindSlots, Servers: float64(w.Concurrency)}
		rs := Resource{Name: RunnerSlots(name), Kind: KindSlots, Servers: float64(w.RunnerCapacity)}
		if v.HasCeiling() && v.Ceiling > 0 {
			share := w.Ceiling / v.Ceiling
			ws.Demand = v.Service.Job.Seconds() * share
			rs.Demand = v.Service.Task.Seconds() * share
		} else {
			ws.Unknown, rs.Unknown = UnknownServiceTime, UnknownServiceTime
		}
		if !w.Unlimited {
			out = append(out, ws)
		}
		out = append(out, rs)
	}
	return out
}

// workerLabel is a worker's name, or "#i" (1-based) when it has none.
func workerLabel(i int, name string) string {
	if name != "" {
		return name
	}
	return fmt.Sprintf("#%d", i+1)
}

// SpreadSlots names the slots of a cluster whose runners are spread.
const SpreadSlots = "slots:spread"

func spreadSlots(v Verdict) []Resource {
	r := v.Range
	if r.EffectiveLow == 0 {
		return nil
	}
	res := Resource{Name: SpreadSlots, Kind: KindSlots, Servers: float64(r.EffectiveLow), Unknown: UnknownServiceTime}
	if v.HasCeiling() && r.CeilingLow > 0 {
		res.Demand, res.Unknown = float64(r.EffectiveLow)/r.CeilingLow, ""
	}
	return []Resource{res}
}
