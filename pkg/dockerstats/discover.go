package dockerstats

import (
	"context"
	"fmt"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
	"golang.org/x/sync/errgroup"

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
// extra options apply last (tests wrap the transport).
func NewClient(host, label string, bound int, extra ...client.Opt) (*Client, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	opts = append(opts, extra...)
	api, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Client{api: api, label: label, bound: max(1, bound), ignored: map[string]bool{}}, nil
}

// Close releases the client's connections.
func (c *Client) Close() error { return c.api.Close() }

// Discover lists running containers and returns the n8n ones, inspected.
// A container whose inspect fails is left out, and named in the
// InspectErrors returned beside the rest; a context that ends first fails
// the whole discovery.
func (c *Client) Discover(ctx context.Context) ([]topology.Process, error) {
	opts := container.ListOptions{}
	if c.label != "" {
		opts.Filters = filters.NewArgs(filters.Arg("label", c.label))
	}
	list, err := c.api.ContainerList(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	cands := c.candidates(list)
	found := make([]*topology.Process, len(cands))
	errs := make([]error, len(cands))
	forEachBounded(len(cands), c.bound, func(i int) {
		found[i], errs[i] = c.inspect(ctx, cands[i])
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inspect containers: %w", err)
	}
	var out []topology.Process
	var failed InspectErrors
	for i, f := range found {
		if errs[i] != nil {
			failed = append(failed, errs[i])
		}
		if f != nil {
			out = append(out, *f)
		}
	}
	joinNamespaces(out)
	if len(failed) > 0 {
		return out, failed
	}
	return out, nil
}

// InspectErrors are the containers a discovery left out because their
// inspect failed, each error naming one by name and short ID; the
// processes returned beside it stand.
type InspectErrors []error

func (e InspectErrors) Error() string {
	return fmt.Sprintf("%d container inspects failed, e.g. %v", len(e), e[0])
}

// LeftOut is one error per container left out.
func (e InspectErrors) LeftOut() []error { return e }

// candidate is a listed container to inspect.
type candidate struct{ id, name string }

// candidates returns the listed containers not known to be foreign, and
// forgets ignored IDs that are gone.
func (c *Client) candidates(list []container.Summary) []candidate {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var out []candidate
	for _, s := range list {
		seen[s.ID] = true
		if !c.ignored[s.ID] {
			cd := candidate{id: s.ID}
			if len(s.Names) > 0 {
				cd.name = strings.TrimPrefix(s.Names[0], "/")
			}
			out = append(out, cd)
		}
	}
	for id := range c.ignored {
		if !seen[id] {
			delete(c.ignored, id)
		}
	}
	return out
}

// inspect returns nil for a container that is not n8n's or vanished.
func (c *Client) inspect(ctx context.Context, cd candidate) (*topology.Process, error) {
	id := cd.id
	in, err := c.api.ContainerInspect(ctx, id)
	if cerrdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inspect %s (%.12s): %w", cd.name, id, err)
	}
	p, ok := c.fromInspect(ctx, in)
	if !ok {
		c.mu.Lock()
		c.ignored[id] = true
		c.mu.Unlock()
		return nil, nil
	}
	return &p, nil
}

// forEachBounded runs f(0..n-1) with at most bound running at once; f
// keeps its own errors.
func forEachBounded(n, bound int, f func(i int)) {
	var g errgroup.Group
	g.SetLimit(bound)
	for i := range n {
		g.Go(func() error { f(i); return nil })
	}
	_ = g.Wait()
}

// ValidLabelFilter checks an EXPORTER_CONTAINER_LABEL value.
func ValidLabelFilter(s string) error {
	k, _, _ := strings.Cut(s, "=")
	if strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("want key=value or key, got %q", s)
	}
	return nil
}
