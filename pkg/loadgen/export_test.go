package loadgen

import "time"

// RecordInto opens a one-hour window on a recorder that obs observes and
// returns its record method, for the benchmark in package loadgen_test
// (which may import pkg/loadgen/prom).
func RecordInto(obs Observer) func(end time.Time, lat time.Duration, rep Reply) {
	rec := &recorder{obs: obs}
	now := time.Now()
	rec.open(now, now.Add(time.Hour), 0)
	return func(end time.Time, lat time.Duration, rep Reply) { rec.record(end, -1, lat, rep) }
}
