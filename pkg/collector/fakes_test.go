package collector

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// countingFakePlatform is a Discoverer that injects nothing: it counts
// the gathers that ask it, and holds each until the test releases it or
// the gather's context ends, so a test can see how many gathers a burst
// of scrapes makes and whether their contexts were cancelled.
type countingFakePlatform struct {
	calls   atomic.Int32
	started chan context.Context // each call's context, as it starts
	release chan struct{}        // closed: every call returns
	once    sync.Once
}

func newCountingFakePlatform() *countingFakePlatform {
	return &countingFakePlatform{started: make(chan context.Context, 64), release: make(chan struct{})}
}

func (p *countingFakePlatform) Discover(ctx context.Context) ([]topology.Process, error) {
	p.calls.Add(1)
	p.started <- ctx
	select {
	case <-p.release:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *countingFakePlatform) releaseAll() { p.once.Do(func() { close(p.release) }) }
