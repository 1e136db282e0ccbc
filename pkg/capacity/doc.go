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
// is min(W, R) / T, the formula of the seed article. A regular-mode main is
// the worker of its own cluster; without a production limit it has no
// worker slots (Worker.Unlimited) and R / taskTime alone bounds it.
//
// Slots are one kind of resource. Every resource k an execution holds (slots,
// a process's CPU, a container's CPU quota, the host's cores) has m_k servers
// and a demand D_k, the seconds one execution holds one of them, and the
// operational laws bound the cluster by X ≤ min_k m_k/D_k (Combine). For N
// closed-loop users with think time Z, X(N) ≤ min(N/(Z+D), min_k m_k/D_k)
// (Asymptotic), and mean value analysis predicts the curve in between.
// Exact is exact MVA for stations visited one after another. Overlapping is
// for n8n, where the holdings overlap (a job's worker slot contains its
// runner slot and much of its CPU): R(n) = Z + latency + Σ_k W_k(n), with
// latency one execution's measured end-to-end latency alone and W_k(n) the
// wait at station k by the arrival theorem. A multi-server station's wait
// comes from the finite-source queue whose mean queue length matches the
// station's; the textbook recursion for its probabilities, run with the
// negative think time Z + latency − Σ D_k that overlap amounts to, yields
// negative probabilities. A spread station (CPU cores) whose demand exceeds
// the latency is queued as m·latency/D servers each held for the latency:
// an execution that alone keeps more than one core busy meets the others
// there before m of them run. A task runner's thread runs a Code task to
// its end before the next: a task that finds another running waits for
// the rest of it, half its demand when the tasks are alike, not the whole
// demand that processor sharing (n8n's main and workers, which interleave
// short pieces of work) or an exponential service gives. Overlapping is
// exact at N = 1 (one execution
// waits nowhere), for single-server stations visited one after another
// (classic exact MVA) and for one multi-server station with a think time
// (the finite-source queue M/M/m//N); with a multi-server station among
// other queues it is within 2 % of exact MVA on the tested grid. It
// converges to min_k m_k/D_k as N grows. It ignores how waiting for one
// resource stretches the holding of another (a job waiting for a runner
// slot keeps its worker slot), and it adds the waits at resources held at
// the same time, so two that saturate together are counted twice.
//
// The package does no I/O, so the seed articles' figures are plain table tests.
package capacity
