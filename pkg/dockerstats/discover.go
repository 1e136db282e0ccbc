package dockerstats

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

// Client discovers n8n containers through the Docker Engine API.
type Client struct {
	api *client.Client
	// label is an optional "key=value" (or "key") list filter.
	label string
	// Bound caps concurrent inspect and stats calls.
	bound int

	mu sync.Mutex
	// ignored remembers containers that are not n8n's, by ID, so each is
	// inspected once rather than on every scrape.
	ignored map[string]bool
}

// NewClient connects to host ("" = DOCKER_HOST or the local socket) and
// negotiates the API version, so old engines (20.10 speaks 1.41) work.
func NewClient(host, label string, bound int) (*Client, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	api, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Client{api: api, label: label, bound: max(1, bound), ignored: map[string]bool{}}, nil
}

// Close releases the client's connections.
func (c *Client) Close() error { return c.api.Close() }

// Discover lists running containers and returns the n8n ones, inspected.
func (c *Client) Discover(ctx context.Context) ([]topology.Process, error) {
	opts := container.ListOptions{}
	if c.label != "" {
		opts.Filters = filters.NewArgs(filters.Arg("label", c.label))
	}
	list, err := c.api.ContainerList(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	ids := c.candidates(list)
	found := make([]*topology.Process, len(ids))
	errs := make([]error, len(ids))
	forEachBounded(len(ids), c.bound, func(i int) {
		found[i], errs[i] = c.inspect(ctx, ids[i])
	})
	var out []topology.Process
	for i, f := range found {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	joinNamespaces(out)
	return out, nil
}

// candidates returns the listed IDs not known to be foreign, and forgets
// ignored IDs that are gone.
func (c *Client) candidates(list []container.Summary) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var ids []string
	for _, s := range list {
		seen[s.ID] = true
		if !c.ignored[s.ID] {
			ids = append(ids, s.ID)
		}
	}
	for id := range c.ignored {
		if !seen[id] {
			delete(c.ignored, id)
		}
	}
	return ids
}

// inspect returns nil for a container that is not n8n's or vanished.
func (c *Client) inspect(ctx context.Context, id string) (*topology.Process, error) {
	in, err := c.api.ContainerInspect(ctx, id)
	if client.IsErrNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inspect %.12s: %w", id, err)
	}
	p, ok := FromInspect(in)
	if !ok {
		c.mu.Lock()
		c.ignored[id] = true
		c.mu.Unlock()
		return nil, nil
	}
	return &p, nil
}

// forEachBounded runs f(0..n-1) with at most bound running at once.
func forEachBounded(n, bound int, f func(i int)) {
	sem := make(chan struct{}, bound)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// ValidLabelFilter checks an EXPORTER_CONTAINER_LABEL value.
func ValidLabelFilter(s string) error {
	k, _, _ := strings.Cut(s, "=")
	if strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("want key=value or key, got %q", s)
	}
	return nil
}
