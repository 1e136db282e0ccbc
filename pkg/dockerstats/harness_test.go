package dockerstats

import (
	"context"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/dockerstats/dockertest"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/topology"
)

type labHarness struct {
	*dockertest.Harness
	t      *testing.T
	client *Client
}

func newLabHarness(t *testing.T, script string) *labHarness {
	h := dockertest.New(t, script)
	c, err := NewClient("", h.Filter(), 16)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &labHarness{Harness: h, t: t, client: c}
}

// discover waits (bounded) until want n8n containers are seen.
func (h *labHarness) discover(want int) []topology.Process {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		cs, err := h.client.Discover(context.Background())
		if err != nil {
			h.t.Fatal(err)
		}
		if len(cs) >= want || time.Now().After(deadline) {
			return cs
		}
		time.Sleep(200 * time.Millisecond)
	}
}
