// Package ticker is the samplers' loop: a call at once, then one every
// interval, until the context ends.
package ticker

import (
	"context"
	"time"
)

// Every calls f at once and then every d until ctx ends.
func Every(ctx context.Context, d time.Duration, f func(now time.Time)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		f(time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
