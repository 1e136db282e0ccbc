package dockertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// FakeInspectFault is a fault-injecting fake in front of the real dockerd
// at DOCKER_HOST: every call goes through, except the inspect of the
// given container IDs, which it answers 500. A healthy dockerd does not
// fail one inspect on demand (a container that vanishes gives 404, which
// is not a failure).
type FakeInspectFault struct {
	base http.RoundTripper
	fail map[string]bool
}

var inspectPath = regexp.MustCompile(`/containers/([^/]+)/json$`)

// NewFakeInspectFault returns an HTTP client for the Docker SDK
// (client.WithHTTPClient) that fails the inspect of ids. DOCKER_HOST must
// be a unix socket.
func NewFakeInspectFault(t testing.TB, ids ...string) *http.Client {
	t.Helper()
	sock, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://")
	if !ok {
		t.Skip("DOCKER_HOST is not a unix socket")
	}
	base := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}
	t.Cleanup(base.CloseIdleConnections)
	f := &FakeInspectFault{base: base, fail: map[string]bool{}}
	for _, id := range ids {
		f.fail[id] = true
	}
	return &http.Client{Transport: f}
}

// RoundTrip answers a failing inspect itself and passes the rest on.
func (f *FakeInspectFault) RoundTrip(req *http.Request) (*http.Response, error) {
	if m := inspectPath.FindStringSubmatch(req.URL.Path); len(m) == 2 && f.fail[m[1]] {
		body := `{"message":"fake inspect fault"}`
		return &http.Response{StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
			ContentLength: int64(len(body)), Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
	}
	return f.base.RoundTrip(req)
}
