package snapshot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/metricname"
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
	fams, err := r.families(ctx)
	if err != nil {
		return nil, err
	}
	return FromFamilies(fams), nil
}

// N8nVersion is the version an n8n process's own /metrics states
// (n8n_version_info, served with N8N_METRICS=true), e.g. "2.41.1".
func (r *Reader) N8nVersion(ctx context.Context) (string, error) {
	fams, err := r.families(ctx)
	if err != nil {
		return "", err
	}
	for _, x := range families(fams).series(metricname.N8nVersionInfo) {
		if v := strings.TrimPrefix(label(x, "version"), "v"); v != "" {
			return v, nil
		}
	}
	return "", fmt.Errorf("scrape %s: no %s", redact.URL(r.URL), metricname.N8nVersionInfo)
}

func (r *Reader) families(ctx context.Context) (map[string]*dto.MetricFamily, error) {
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
	return parseFamilies(io.LimitReader(resp.Body, maxBody))
}
