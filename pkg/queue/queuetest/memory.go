package queuetest

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// Memory is an in-memory Redis (miniredis) and a client connected to it,
// for tests that need Redis commands but not the real server's behaviour.
type Memory struct {
	*miniredis.Miniredis
	Client *redis.Client
}

// StartMemory runs an in-memory Redis on a loopback port for the test's
// lifetime.
func StartMemory(t testing.TB) *Memory {
	t.Helper()
	m := &Memory{Miniredis: miniredis.RunT(t)}
	m.Client = redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { m.Client.Close() })
	return m
}
