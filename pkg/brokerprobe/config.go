package brokerprobe

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
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
// PROBE_NAME into configs. All empty means no probe. PROBE_NAME may be
// empty, giving probe-1, probe-2, …
func ParseConfigs(listen, upstream, name string) ([]Config, error) {
	if strings.TrimSpace(listen+upstream+name) == "" {
		return nil, nil
	}
	listens, upstreams, names := splitList(listen), splitList(upstream), splitList(name)
	if len(listens) == 0 {
		return nil, fmt.Errorf("PROBE_LISTEN is empty but PROBE_UPSTREAM or PROBE_NAME is set")
	}
	if len(upstreams) != len(listens) {
		return nil, fmt.Errorf("PROBE_UPSTREAM has %d entries, PROBE_LISTEN has %d", len(upstreams), len(listens))
	}
	if len(names) == 0 {
		for i := range listens {
			names = append(names, fmt.Sprintf("probe-%d", i+1))
		}
	}
	if len(names) != len(listens) {
		return nil, fmt.Errorf("PROBE_NAME has %d entries, PROBE_LISTEN has %d", len(names), len(listens))
	}
	return buildConfigs(listens, upstreams, names)
}

func buildConfigs(listens, upstreams, names []string) ([]Config, error) {
	seenName, seenListen := map[string]bool{}, map[string]bool{}
	cfgs := make([]Config, 0, len(listens))
	for i := range listens {
		c := Config{Name: names[i], Listen: listens[i], Upstream: upstreams[i]}
		if err := c.validate(); err != nil {
			return nil, err
		}
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

// splitList splits a comma list, trimming blanks; "" gives no entries.
func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func (c Config) validate() error {
	if c.Name == "" {
		return fmt.Errorf("PROBE_NAME: empty name")
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("PROBE_LISTEN %q: want host:port: %v", c.Listen, err)
	}
	if c.HeartbeatInterval < 0 {
		return fmt.Errorf("PROBE_HEARTBEAT_INTERVAL: want a positive interval, or 0 for the default %v", DefaultHeartbeatInterval)
	}
	_, err := parseUpstream(c.Upstream)
	return err
}

// parseUpstream accepts http(s)://host[:port] with no credentials, path or
// query: the probe adds the broker's own paths.
func parseUpstream(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("PROBE_UPSTREAM: not a URL (%v)", redactedURLError(err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("PROBE_UPSTREAM %q: scheme must be http or https", u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("PROBE_UPSTREAM %q: no host", u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("PROBE_UPSTREAM %q: credentials in the URL are not allowed", u.Redacted())
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("PROBE_UPSTREAM %q: give scheme://host:port only", u.Redacted())
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
