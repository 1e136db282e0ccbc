// Package loadgen drives stepped load against HTTP targets and measures each
// step: check pass rate, errors by kind, passing throughput, latency
// percentiles (HdrHistogram) and mean in flight. It finds the knee of the
// throughput curve and checks thresholds over the run. It is a pure engine
// that knows nothing of n8n: an Observer watches requests live (loadctl's
// Prometheus metrics, pkg/loadgen/prom), a StepHook adds to each step's
// result (loadctl's comparison with the exporter, pkg/comparison), and
// pkg/report renders results for people.
//
// Two schedulers share one recorder:
//   - closed loop: a pool of virtual users, each with one request in flight;
//   - open loop: requests start on a fixed schedule whatever the response
//     time, and latency runs from the intended start, so a stalled server
//     shows up as latency instead of as fewer samples (no coordinated
//     omission). A bounded in-flight budget turns overload into counted
//     dropped starts rather than unbounded goroutines.
//
// A result is attributed to the step in which it completes, and only when it
// completes inside the step's measured window (after its warm-up).
//
// A result holds no secret: URLs and error examples are redacted
// (pkg/redact), header values are never kept, and the request body only
// with Sweep.RecordBody.
package loadgen
