package e2e

import (
	"context"
	"testing"
	"time"
)

// poll calls read every interval, starting after skip, until ctx ends,
// and sends the readings read said to keep (in time order) once it has.
// A ctx that ends during skip sends none.
func poll[S ~[]E, E any](ctx context.Context, skip, every time.Duration, read func() (E, bool)) <-chan S {
	out := make(chan S, 1)
	go func() {
		var got S
		defer func() { out <- got }()
		select {
		case <-ctx.Done():
			return
		case <-time.After(skip):
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if v, ok := read(); ok {
				got = append(got, v)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// poll keeps the readings read says to keep, none before skip, and stops
// with ctx.
func TestPoll(t *testing.T) {
	calls := 0
	read := func() (int, bool) { calls++; return calls, calls%2 == 1 }
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	got := <-poll[[]int](ctx, 0, 10*time.Millisecond, read)
	if len(got) == 0 || got[0] != 1 {
		t.Fatalf("readings %v, want the odd calls from the first", got)
	}
	for _, v := range got {
		if v%2 == 0 {
			t.Errorf("readings %v kept a reading read said to drop", got)
		}
	}
	short, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	before := calls
	if got := <-poll[[]int](short, time.Hour, time.Millisecond, read); len(got) != 0 || calls != before {
		t.Errorf("ended during skip: readings %v, %d calls, want none", got, calls-before)
	}
}
