package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// sample is one reading of the active list, the queued jobs and the job-id
// counter, which Bull increments once per job added. active counts only
// the jobs a live worker holds: Bull keeps a lock key per job a worker is
// processing, renewed while it runs, so a job a killed worker left stalled
// in the active list has none. queued counts every job still in the queue
// (waiting, in the active list, paused or delayed); id − queued is the jobs
// completed so far (n8n removes a job when it ends). gated marks a reading
// taken while the sampler's gate said the runner was saturated, or any
// other reading the job time must not use; stalled marks one no estimate
// may use. held counts the locked jobs per lock value: Bull writes the
// holding worker's token there, so each entry is one worker's jobs.
type sample struct {
	at      time.Time
	active  int64
	over    int64 // locked jobs past the live workers' slots: a killed worker's
	wait    int64
	queued  int64
	id      int64
	gated   bool
	stalled bool
	held    []int64
	limit   int64 // each worker's runner capacity at the reading; 0 unknown
	slots   int64 // the live workers' concurrency at the reading; 0 unknown
}

// sameShape says whether two readings were taken with the same worker
// slots and runner capacity. Job and runner times measured under one shape
// say little of another (a job that waited for one runner slot, then
// runs beside five), so an estimate spans one shape.
func (s sample) sameShape(o sample) bool { return s.slots == o.slots && s.limit == o.limit }

// runnerFull says whether a worker held more jobs than its runners take.
func (s sample) runnerFull() bool { return s.limit > 0 && s.mostHeld() > s.limit }

// everyRunnerFull says whether every worker that held jobs held more than
// its runners take.
func (s sample) everyRunnerFull() bool {
	return s.limit > 0 && len(s.held) > 0 && slices.Min(s.held) > s.limit
}

// mostHeld is the most jobs one worker held at the reading, 0 for none.
func (s sample) mostHeld() int64 { return slices.Max(append([]int64{0}, s.held...)) }

// done is the jobs completed up to the reading.
func (s sample) done() int64 { return s.id - s.queued }

// locked is every job with a lock key, a killed worker's included.
func (s sample) locked() int64 { return s.active + s.over }

// sample takes one reading, and returns with it the active jobs without a
// lock key: stalled, or (rarely) completed between its two round trips.
func (r *Reader) sample(ctx context.Context, at time.Time) (sample, []string, error) {
	var active *redis.StringSliceCmd
	var id *redis.StringCmd
	var lens []*redis.IntCmd // wait, active, paused, delayed
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		active = p.LRange(ctx, r.key("active"), 0, maxActive-1)
		lens = r.queuedLens(ctx, p)
		id = p.Get(ctx, r.key("id"))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return sample{}, nil, fmt.Errorf("redis sample: %w", err)
	}
	n, err := id.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return sample{}, nil, fmt.Errorf("redis sample: %s is not a counter: %w", r.key("id"), err)
	}
	unlocked, held, err := r.locks(ctx, active.Val())
	if err != nil {
		return sample{}, nil, err
	}
	locked := int64(len(active.Val()) - len(unlocked))
	return sample{at: at, active: locked, wait: lens[0].Val(), queued: total(lens), id: n, held: held}, unlocked, nil
}

// maxActive bounds the active jobs one reading looks at.
const maxActive = 10000

// locks reads the lock keys of ids in one round trip: the jobs without
// one, and the locked jobs counted per lock value (its holder). The
// values are compared, never kept or shown.
func (r *Reader) locks(ctx context.Context, ids []string) (unlocked []string, held []int64, err error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	_, err = r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.Get(ctx, r.key(id+":lock"))
		}
		return nil
	})
	var reply redis.Error // a per-key reply, e.g. WRONGTYPE: read below
	if err != nil && !errors.Is(err, redis.Nil) && !errors.As(err, &reply) {
		return nil, nil, fmt.Errorf("redis sample: job locks: %w", err)
	}
	per := map[string]int64{}
	for i, c := range cmds {
		switch v, err := c.Result(); {
		case errors.Is(err, redis.Nil):
			unlocked = append(unlocked, ids[i])
		case err != nil: // a lock of a foreign type: locked, holder unknown
			per[""]++
		default:
			per[v]++
		}
	}
	for _, n := range per {
		held = append(held, n)
	}
	return unlocked, held, nil
}
