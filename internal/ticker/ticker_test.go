package ticker

import (
	"context"
	"testing"
	"time"
)

// The first call comes at once, before any tick; Every returns once ctx
// ends, with no call after that.
func TestEvery(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	Every(ctx, time.Hour, func(time.Time) { calls++; cancel() })
	if calls != 1 {
		t.Fatalf("%d calls, want 1 (at once) and a return on cancel", calls)
	}
}
