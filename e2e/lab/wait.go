package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// BenchBody is the bench workflow's request: the Code node sleeps sleep_ms
// and holds alloc_mb of Buffer meanwhile.
func BenchBody(sleepMS, allocMB int) []byte {
	return fmt.Appendf(nil, `{"sleep_ms":%d,"alloc_mb":%d}`, sleepMS, allocMB)
}

// CallBench posts one request to the bench webhook and checks the answer is
// HTTP 200 with {"ok":true}.
func CallBench(ctx context.Context, c *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", res.StatusCode, raw)
	}
	var ans struct {
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || !ans.OK {
		return fmt.Errorf("answer is not {ok:true}: %.200s", raw)
	}
	return nil
}

// attemptLimit bounds one attempt of Until and UntilAny (or the interval,
// when that is longer).
const attemptLimit = 10 * time.Second

// Until retries check every interval until it succeeds or timeout passes,
// and returns the last error on timeout.
func Until(ctx context.Context, timeout, interval time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		attempt, stop := context.WithTimeout(ctx, max(interval, attemptLimit))
		err := check(attempt)
		stop()
		if err == nil {
			return nil
		}
		if last == nil || ctx.Err() == nil {
			last = err // an attempt the deadline cut says less than the answer before it
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v: %w", timeout, last)
		case <-time.After(interval):
		}
	}
}

// UntilAny is Until for a check that can hang: it starts an attempt
// every interval whether or not the ones before have answered, and returns
// at the first success, cancelling the rest. A webhook request that lands
// on a worker without a runner hangs until the task-request timeout, while
// one started a second later on a worker with a runner answers at once.
// An attempt runs up to attemptLimit (10 s), so at most 10 s ÷ interval
// run at once.
func UntilAny(ctx context.Context, timeout, interval time.Duration, check func(context.Context) error) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	errs := make(chan error)
	start := func() {
		wg.Go(func() {
			attempt, stop := context.WithTimeout(ctx, max(interval, attemptLimit))
			defer stop()
			err := check(attempt)
			select {
			case errs <- err:
			case <-ctx.Done():
			}
		})
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	start()
	var last error
	for {
		select {
		case err := <-errs:
			if err == nil {
				return nil
			}
			last = err
		case <-tick.C:
			start()
		case <-ctx.Done():
			if last == nil {
				last = ctx.Err()
			}
			return fmt.Errorf("not ready after %v: %w", timeout, last)
		}
	}
}

// GetOK checks that url answers a GET with HTTP 200.
func GetOK(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", url, res.StatusCode)
	}
	return nil
}
