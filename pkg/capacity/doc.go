// Package capacity is the pure model behind n8n-ceiling: given each worker's
// concurrency, the runners attached to it and the time a job holds each kind
// of slot, it names the limiting side and the throughput ceiling.
//
// A production execution in queue mode holds a worker slot for the whole job
// and, while its Code node runs, a slot in a task runner. So a worker with
// concurrency W and runners whose limits sum to R completes at most
//
//	min(W / jobTime, R / taskTime)
//
// executions per second. For a Code-only workflow jobTime ≈ taskTime and this
// is min(W, R) / T, the formula of the seed article.
//
// The package does no I/O, so the seed articles' figures are plain table tests.
package capacity
