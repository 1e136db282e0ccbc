package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// sample is one reading of the active list, the wait list and the job-id
// counter, which Bull increments once per job added. gated marks a reading
// taken while the sampler's gate said the runner was saturated.
type sample struct {
	at     time.Time
	active int64
	wait   int64
	id     int64
	gated  bool
}

func (r *Reader) sample(ctx context.Context, at time.Time) (sample, error) {
	var active, wait *redis.IntCmd
	var id *redis.StringCmd
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		active = p.LLen(ctx, r.key("active"))
		wait = p.LLen(ctx, r.key("wait"))
		id = p.Get(ctx, r.key("id"))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return sample{}, fmt.Errorf("redis sample: %w", err)
	}
	n, err := id.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return sample{}, fmt.Errorf("redis sample: %s is not a counter: %w", r.key("id"), err)
	}
	return sample{at: at, active: active.Val(), wait: wait.Val(), id: n}, nil
}
