package queue

import (
	"context"
	"errors"
	"fmt"
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
// other reading the job time must not use.
type sample struct {
	at     time.Time
	active int64
	over   int64 // locked jobs past the live workers' slots: a killed worker's
	wait   int64
	queued int64
	id     int64
	gated  bool
}

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
	unlocked, err := r.unlocked(ctx, active.Val())
	if err != nil {
		return sample{}, nil, err
	}
	locked := int64(len(active.Val()) - len(unlocked))
	return sample{at: at, active: locked, wait: lens[0].Val(), queued: total(lens), id: n}, unlocked, nil
}

// maxActive bounds the active jobs one reading looks at.
const maxActive = 10000

// unlocked returns the jobs among ids without a lock key, in one round
// trip.
func (r *Reader) unlocked(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.IntCmd, len(ids))
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.Exists(ctx, r.key(id+":lock"))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redis sample: job locks: %w", err)
	}
	var out []string
	for i, c := range cmds {
		if c.Val() == 0 {
			out = append(out, ids[i])
		}
	}
	return out, nil
}
