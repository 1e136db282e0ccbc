package brokerprobe

import (
	"fmt"
	"net/url"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// Config is one listen → upstream pair.
type Config struct {
	Name     string // the probe label value
	Listen   string // host:port the caller serves Handler on
	Upstream string // the worker's task broker, e.g. "http://127.0.0.1:5689"
}

// ParseConfigs turns the comma lists from PROBE_LISTEN, PROBE_UPSTREAM and
// PROBE_NAME into configs, with route's rules (shared with pkg/topology).
// All empty means no probe. PROBE_NAME may be empty, giving probe-1,
// probe-2, …
func ParseConfigs(listen, upstream, name string) ([]Config, error) {
	entries, err := route.Parse(listen, upstream)
	if err != nil {
		return nil, err
	}
	names, err := route.Split(route.NameVar, name)
	switch {
	case err != nil:
		return nil, err
	case len(entries) == 0 && len(names) > 0:
		return nil, &route.Error{Var: route.ListenVar, Reason: "empty, but " + route.NameVar + " is set"}
	case len(names) == 0:
		for i := range entries {
			names = append(names, fmt.Sprintf("probe-%d", i+1))
		}
	case len(names) != len(entries):
		return nil, fmt.Errorf("PROBE_NAME has %d entries, PROBE_LISTEN has %d", len(names), len(entries))
	}
	return buildConfigs(entries, names)
}

func buildConfigs(entries []route.Entry, names []string) ([]Config, error) {
	seenName, seenListen := map[string]bool{}, map[string]bool{}
	var cfgs []Config
	for i, e := range entries {
		c := Config{Name: names[i], Listen: e.Listen, Upstream: e.Upstream}
		if seenName[c.Name] {
			return nil, fmt.Errorf("PROBE_NAME %q appears twice", c.Name)
		}
		if seenListen[c.Listen] {
			return nil, fmt.Errorf("PROBE_LISTEN %q appears twice", c.Listen)
		}
		seenName[c.Name], seenListen[c.Listen] = true, true
		cfgs = append(cfgs, c)
	}
	return cfgs, nil
}

func (c Config) validate() error {
	if c.Name == "" {
		return fmt.Errorf("PROBE_NAME: empty name")
	}
	if _, err := route.ParseListen(c.Listen); err != nil {
		return route.Named(err, route.ListenVar, 0)
	}
	_, err := parseUpstream(c.Upstream)
	return err
}

// parseUpstream checks s with route.ParseUpstream, which accepts only
// http(s)://host[:port] and a subset of what net/url accepts, then keeps
// net/url's form of it for the proxy.
func parseUpstream(s string) (*url.URL, error) {
	if _, err := route.ParseUpstream(s); err != nil {
		return nil, route.Named(err, route.UpstreamVar, 0)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("PROBE_UPSTREAM: not a URL (%v)", redactedURLError(err))
	}
	return u, nil
}

// redactedURLError drops the URL text from a parse error, which could
// hold credentials.
func redactedURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
