package queue

import (
	"context"

	"github.com/redis/go-redis/v9"
)

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
