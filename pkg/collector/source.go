package collector

import (
	"context"
	"time"
)

// timed runs one source with its own timeout and records the outcome.
func timed(ctx context.Context, name string, timeout time.Duration, f func(context.Context) error) SourceResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	err := f(ctx)
	res := SourceResult{Name: name, Up: err == nil, Duration: time.Since(start)}
	if err != nil {
		res.Err = err.Error()
	}
	return res
}
