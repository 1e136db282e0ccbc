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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
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

	next    atomic.Uint64
	once    sync.Once
	parsed  []*url.URL
	header  http.Header
	prepErr error
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
			return fmt.Errorf("URL %q: want http(s)://host[:port]/path", redact.URL(u))
		}
	}
	if t.Method != "" {
		if err := CheckMethod(t.Method); err != nil {
			return err
		}
	}
	if t.Client == nil || t.Client.Timeout <= 0 {
		return errors.New("the HTTP client needs a timeout")
	}
	return nil
}

// CheckMethod applies net/http's own rule to an HTTP method: a
// non-empty token of RFC 9110 (letters, digits and !#$%&'*+-.^_`|~).
func CheckMethod(m string) error {
	if m == "" {
		return errors.New("method is empty")
	}
	if _, err := http.NewRequest(m, "http://127.0.0.1/", nil); err != nil {
		return fmt.Errorf("method %q: not an HTTP token (letters, digits and !#$%%&'*+-.^_`|~ only)", m)
	}
	return nil
}

// Reply is one request's outcome. Detail says what went wrong (an HTTP
// status, a transport error) and is empty on a pass. Cancelled means ctx
// ended: the sweep is stopping and the request says nothing about the
// target.
type Reply struct {
	Outcome   Outcome
	Detail    string
	Cancelled bool
}

// Hit sends one request and classifies it.
func (t *Target) Hit(ctx context.Context) Reply {
	t.once.Do(t.prepare)
	if t.prepErr != nil {
		return Reply{Outcome: OutcomeConnection, Detail: t.prepErr.Error()}
	}
	u := t.parsed[int((t.next.Add(1)-1)%uint64(len(t.parsed)))]
	req := &http.Request{
		Method: t.methodOrPost(), URL: u, Host: u.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: t.header, Body: io.NopCloser(bytes.NewReader(t.Body)), ContentLength: int64(len(t.Body)),
	}
	if len(t.Body) == 0 {
		req.Body = http.NoBody
	}
	resp, err := t.Client.Do(req.WithContext(ctx))
	if err != nil {
		return classify(ctx, err)
	}
	body, err := t.readBody(resp.Body)
	resp.Body.Close()
	if err != nil {
		return classify(ctx, err)
	}
	switch o := t.Checks.Evaluate(resp.StatusCode, body); o {
	case OutcomePass:
		return Reply{Outcome: o}
	case OutcomeStatus:
		return Reply{Outcome: o, Detail: "HTTP " + resp.Status}
	default:
		return Reply{Outcome: o, Detail: checkDetail(t.Checks, body)}
	}
}

// checkDetail names the failed checks and shows the start of the body, so
// a report says what came back instead of only that it was wrong.
func checkDetail(c Checks, body []byte) string {
	exprs := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		exprs[i] = f.Expr
	}
	const show = 120
	if len(body) > show {
		body = append(body[:show:show], "…"...)
	}
	return fmt.Sprintf("check %s failed on body %q", strings.Join(exprs, ", "), body)
}

// prepare parses the URLs and builds the header set once. The header map
// is shared read-only by every request: neither Client.Do (without a
// cookie jar) nor the transport writes to it.
func (t *Target) prepare() {
	t.header = t.Header.Clone()
	if t.header == nil {
		t.header = http.Header{}
	}
	if t.ContentType != "" && t.header.Get("Content-Type") == "" {
		t.header.Set("Content-Type", t.ContentType)
	}
	for _, raw := range t.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			t.prepErr = err
			return
		}
		t.parsed = append(t.parsed, u)
	}
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

func classify(ctx context.Context, err error) Reply {
	if ctx.Err() != nil {
		return Reply{Cancelled: true}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return Reply{Outcome: OutcomeTimeout, Detail: err.Error()}
	}
	return Reply{Outcome: OutcomeConnection, Detail: err.Error()}
}
