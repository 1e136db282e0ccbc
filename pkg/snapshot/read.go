package snapshot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// maxBody bounds one answer.
const maxBody = 8 << 20

// Reader scrapes one /metrics URL.
type Reader struct {
	URL    string
	Client *http.Client // nil: a client with a 5 s timeout
}

// Read fetches and parses one scrape. Errors name the URL with its
// password and query values hidden (pkg/redact), the client's own text
// included.
func (r *Reader) Read(ctx context.Context) (*Snapshot, error) {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: bad URL", redact.URL(r.URL))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %s", redact.URL(r.URL), redact.Text(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: HTTP %d", redact.URL(r.URL), resp.StatusCode)
	}
	return Parse(io.LimitReader(resp.Body, maxBody))
}
