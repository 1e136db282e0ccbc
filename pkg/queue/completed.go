package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Completed counts the jobs that have left the queue: Bull's job-id
// counter (incremented once per job added) minus the jobs still waiting,
// active, delayed or paused. n8n removes a job when it completes or
// fails, so this is the executions completed so far, read in one round
// trip and exact to the second (n8n's own queue counter refreshes every
// 20 s; a broker probe counts Code tasks, not executions). A job a killed
// worker left stalled in the active list stays uncounted until Bull
// removes it, which then counts as one completion.
func (r *Reader) Completed(ctx context.Context) (float64, error) {
	var id *redis.StringCmd
	var lens []*redis.IntCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		id = p.Get(ctx, r.key("id"))
		lens = r.queuedLens(ctx, p)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("redis completed: %w", err)
	}
	n, err := id.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("redis completed: %s is not a counter: %w", r.key("id"), err)
	}
	return float64(max(0, n-total(lens))), nil
}

// queuedLens queues on p the lengths of every place a job sits until it
// ends: the wait, active and paused lists, then the delayed set.
func (r *Reader) queuedLens(ctx context.Context, p redis.Pipeliner) []*redis.IntCmd {
	var lens []*redis.IntCmd
	for _, k := range []string{"wait", "active", "paused"} {
		lens = append(lens, p.LLen(ctx, r.key(k)))
	}
	return append(lens, p.ZCard(ctx, r.key("delayed")))
}

// total sums the lengths.
func total(lens []*redis.IntCmd) int64 {
	var n int64
	for _, l := range lens {
		n += l.Val()
	}
	return n
}
