package brokerprobe

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/brokerprobe/route"
)

// Config is one listen → upstream pair.
type Config struct {
	Name     string // the probe label value
	Listen   string // host:port the caller serves Handler on
	Upstream string // the worker's task broker, e.g. "http://127.0.0.1:5689"
	// HeartbeatInterval (PROBE_HEARTBEAT_INTERVAL) must match the broker's
	// N8N_RUNNERS_HEARTBEAT_INTERVAL; 0 means n8n's default, 30 s. The
	// broker pings every interval and the runner pongs, so a side that
	// sends no byte, or takes none, for two intervals is cut. Set shorter
	// than the broker's, it cuts idle runners the broker would keep.
	HeartbeatInterval time.Duration
	// TaskWindow is how far back the recent task mean reaches while tasks
	// end (0: RecentFresh). The exporter sets its demand window, so the
	// task time and the CPU demands cover the same seconds.
	TaskWindow time.Duration
}

// DefaultHeartbeatInterval is n8n's default N8N_RUNNERS_HEARTBEAT_INTERVAL.
const DefaultHeartbeatInterval = 30 * time.Second

// ParseHeartbeat reads PROBE_HEARTBEAT_INTERVAL: whole seconds, as n8n's
// N8N_RUNNERS_HEARTBEAT_INTERVAL is written ("30"), or a Go duration
// ("30s"). Empty gives 0, the default.
func ParseHeartbeat(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("PROBE_HEARTBEAT_INTERVAL: want whole seconds as in N8N_RUNNERS_HEARTBEAT_INTERVAL (e.g. 30) or a positive duration (e.g. 30s)")
	}
	return d, nil
}

// heartbeat is the interval in effect.
func (c Config) heartbeat() time.Duration {
	if c.HeartbeatInterval == 0 {
		return DefaultHeartbeatInterval
	}
	return c.HeartbeatInterval
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
	names, err := route.Names(name, len(entries))
	if err != nil {
		return nil, err
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
	if c.HeartbeatInterval < 0 {
		return fmt.Errorf("PROBE_HEARTBEAT_INTERVAL: want a positive interval, or 0 for the default %v", DefaultHeartbeatInterval)
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
