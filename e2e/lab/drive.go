package lab

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// DriveResult counts what a closed-loop run saw inside its measuring window.
type DriveResult struct {
	Window  time.Duration
	OK      int     // responses that were HTTP 200 with {ok:true}
	Failed  int     // everything else, including timeouts
	Errors  []error // the first few failures, for the log
	PerSec  float64 // OK / Window
	Started int     // requests sent in all, warm-up included
	// Latency sums the OK requests' times inside the window.
	Latency time.Duration
	// FirstFailed is when the first failure ended, warm-up included; zero
	// when none failed.
	FirstFailed time.Time
}

// MeanLatency is the mean time of the OK requests inside the window.
func (r DriveResult) MeanLatency() time.Duration {
	if r.OK == 0 {
		return 0
	}
	return r.Latency / time.Duration(r.OK)
}

// ClosedLoop runs vus virtual users, each with one request in flight, for
// warmup+window, and counts the requests that complete inside the window.
// It is the small driver the foundation e2e needs; loadctl is the real one.
func ClosedLoop(ctx context.Context, url string, body []byte, vus int, warmup, window time.Duration) DriveResult {
	client := &http.Client{Timeout: 2 * time.Minute}
	start := time.Now()
	from, to := start.Add(warmup), start.Add(warmup+window)
	ctx, cancel := context.WithDeadline(ctx, to)
	defer cancel()

	var mu sync.Mutex
	res := DriveResult{Window: window}
	var wg sync.WaitGroup
	for range vus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				sent := time.Now()
				err := CallBench(ctx, client, url, body)
				done := time.Now()
				mu.Lock()
				res.Started++
				if err != nil && ctx.Err() == nil && res.FirstFailed.IsZero() {
					res.FirstFailed = done
				}
				if done.After(from) && !done.After(to) && ctx.Err() == nil {
					if err == nil {
						res.OK++
						res.Latency += done.Sub(sent)
					} else {
						res.Failed++
						if len(res.Errors) < 5 {
							res.Errors = append(res.Errors, err)
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.PerSec = float64(res.OK) / window.Seconds()
	return res
}
