package capacity

import (
	"math"
	"time"
)

// Prediction is what the model expects from a closed-loop load of N virtual
// users, each with exactly one request in flight.
type Prediction struct {
	VUs         int
	Throughput  float64       // executions per second
	MeanLatency time.Duration // Little's law: VUs / throughput
	QueueWait   int           // jobs waiting in Redis: max(0, N − worker concurrency)
}

// PredictClosedLoop applies the seed's formulas for N VUs against v:
// throughput = min(N/job, ceiling), which is min(N, effective)/T for a
// single-stage workflow; mean latency = N / throughput, which is
// max(1, N/effective) × T. It needs a known service time and a runner.
func PredictClosedLoop(v Verdict, vus int) (Prediction, error) {
	if vus <= 0 {
		return Prediction{}, invalid("VUs must be positive, got %d", vus)
	}
	if !v.HasCeiling() {
		return Prediction{}, invalid("a prediction needs a service time")
	}
	if v.Ceiling <= 0 {
		return Prediction{}, invalid("no worker has a runner, so no execution completes")
	}
	tput := math.Min(perSecond(vus, v.Service.Job), v.Ceiling)
	return Prediction{
		VUs:         vus,
		Throughput:  tput,
		MeanLatency: time.Duration(float64(vus) / tput * float64(time.Second)),
		QueueWait:   max(0, vus-v.WorkerConcurrency),
	}, nil
}
