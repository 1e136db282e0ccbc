package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// Limits on what a response may cost us.
const (
	maxCheckedBody = 1 << 20  // bytes kept for field checks
	maxDrainedBody = 64 << 20 // bytes read to reuse the connection
)

// Target is what every request sends: URLs in round-robin order, one
// prepared body, headers, and the checks that decide pass or fail.
type Target struct {
	URLs        []string
	Method      string
	Header      http.Header
	Body        []byte
	ContentType string
	Checks      Checks
	Client      *http.Client

	next atomic.Uint64
}

// NewClient returns an HTTP client sized for maxConns concurrent requests,
// with a hard per-request timeout.
func NewClient(timeout time.Duration, maxConns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil, // loopback load must not detour through a proxy
		DialContext:         (&net.Dialer{Timeout: min(timeout, 10*time.Second)}).DialContext,
		MaxIdleConns:        maxConns,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// Validate rejects a target that could never send a request.
func (t *Target) Validate() error {
	if len(t.URLs) == 0 {
		return errors.New("no URL")
	}
	for _, u := range t.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("URL %q: want http(s)://host[:port]/path", u)
		}
	}
	if t.Client == nil || t.Client.Timeout <= 0 {
		return errors.New("the HTTP client needs a timeout")
	}
	return nil
}

// Hit sends one request and classifies it. ok is false when ctx was
// cancelled: the sweep is ending and the request says nothing about the
// target.
func (t *Target) Hit(ctx context.Context) (o Outcome, ok bool) {
	u := t.URLs[int((t.next.Add(1)-1)%uint64(len(t.URLs)))]
	req, err := http.NewRequestWithContext(ctx, t.methodOrPost(), u, bytes.NewReader(t.Body))
	if err != nil {
		return OutcomeConnection, true
	}
	for k, v := range t.Header {
		req.Header[k] = v
	}
	if t.ContentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", t.ContentType)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return classify(ctx, err)
	}
	body, err := t.readBody(resp.Body)
	resp.Body.Close()
	if err != nil {
		return classify(ctx, err)
	}
	return t.Checks.Evaluate(resp.StatusCode, body), true
}

func (t *Target) methodOrPost() string {
	if t.Method == "" {
		return http.MethodPost
	}
	return t.Method
}

// readBody keeps the first part the checks need and drains the rest, so
// the connection goes back to the pool.
func (t *Target) readBody(r io.Reader) ([]byte, error) {
	var kept []byte
	if t.Checks.NeedsBody() {
		var err error
		if kept, err = io.ReadAll(io.LimitReader(r, maxCheckedBody)); err != nil {
			return nil, err
		}
	}
	_, err := io.Copy(io.Discard, io.LimitReader(r, maxDrainedBody))
	return kept, err
}

func classify(ctx context.Context, err error) (Outcome, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return OutcomeTimeout, true
	}
	return OutcomeConnection, true
}
