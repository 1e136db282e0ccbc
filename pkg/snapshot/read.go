package snapshot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// maxBody bounds one answer.
const maxBody = 8 << 20

// Reader scrapes one /metrics URL.
type Reader struct {
	URL    string
	Client *http.Client // nil: a client with a 5 s timeout
}

// Read fetches and parses one scrape. Errors name the URL with any
// password hidden.
func (r *Reader) Read(ctx context.Context) (*Snapshot, error) {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: bad URL", redacted(r.URL))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", redacted(r.URL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: HTTP %d", redacted(r.URL), resp.StatusCode)
	}
	return Parse(io.LimitReader(resp.Body, maxBody))
}

// redacted hides a URL's password; an unparsable URL is not shown.
func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable)"
}
