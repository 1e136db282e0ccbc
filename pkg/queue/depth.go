package queue

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// States are Bull's job states in the order they are published. Bull keeps
// waiting, active and paused jobs in lists (LLEN) and delayed, completed
// and failed ones in sorted sets (ZCARD).
var States = []string{"waiting", "active", "delayed", "paused", "completed", "failed"}

// bullKey maps a published state to the key suffix Bull uses.
var bullKey = map[string]string{
	"waiting": "wait", "active": "active", "delayed": "delayed",
	"paused": "paused", "completed": "completed", "failed": "failed",
}

var sortedSet = map[string]bool{"delayed": true, "completed": true, "failed": true}

// Reader reads one Bull queue under a prefix: n8n's default queue, jobs,
// or a worker pool's.
type Reader struct {
	rdb    redis.UniversalClient
	prefix string
	queue  string
}

// NewReader reads <prefix>:jobs:* through rdb; prefix is QUEUE_BULL_PREFIX.
func NewReader(rdb redis.UniversalClient, prefix string) *Reader {
	if prefix == "" {
		prefix = "bull"
	}
	return &Reader{rdb: rdb, prefix: prefix, queue: "jobs"}
}

// Pool reads worker pool name's queue, <prefix>:jobs-<name>:*, as n8n
// 2.41 names it (a worker with N8N_WORKER_POOL_NAME takes its jobs from
// there).
func (r *Reader) Pool(name string) *Reader {
	return &Reader{rdb: r.rdb, prefix: r.prefix, queue: "jobs-" + name}
}

func (r *Reader) key(suffix string) string { return r.prefix + ":" + r.queue + ":" + suffix }

// Depth returns the number of jobs per state, in one round trip.
func (r *Reader) Depth(ctx context.Context) (map[string]int64, error) {
	cmds := map[string]*redis.IntCmd{}
	_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, s := range States {
			if sortedSet[s] {
				cmds[s] = p.ZCard(ctx, r.key(bullKey[s]))
			} else {
				cmds[s] = p.LLen(ctx, r.key(bullKey[s]))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redis queue depth: %w", err)
	}
	out := make(map[string]int64, len(States))
	for s, c := range cmds {
		out[s] = c.Val()
	}
	return out, nil
}
