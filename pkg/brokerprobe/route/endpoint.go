package route

import (
	"net/netip"
	"strings"
)

// URL is what pairing and the probe need from a URL. Rest is the path,
// query and fragment as written.
type URL struct {
	Scheme string // lower-case
	Endpoint
	User bool // it carried userinfo (dropped)
	Rest string
}

// ParseListen reads a listen address, host:port or [v6]:port. An empty
// host means every address (0.0.0.0). The port is a number, 0 included.
func ParseListen(s string) (Endpoint, error) {
	host, port, ok := splitHostPort(s)
	if !ok {
		return Endpoint{}, reason("want host:port")
	}
	p, ok := parsePort(port)
	if !ok {
		return Endpoint{}, reason("port is not a number in 0-65535")
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return Endpoint{Host: host, Port: p}, nil
}

// ParseUpstream reads a broker URL the probe relays to:
// http(s)://host[:port] with no credentials, path or query (the probe adds
// the broker's own paths). A bare trailing slash is allowed.
func ParseUpstream(s string) (URL, error) {
	u, err := ParseURL(s)
	switch {
	case err != nil:
		return URL{}, err
	case u.Scheme != "http" && u.Scheme != "https":
		return URL{}, reason("scheme must be http or https")
	case u.User:
		return URL{}, reason("credentials in the URL are not allowed")
	case strings.Trim(u.Rest, "/") != "":
		return URL{}, reason("give scheme://host:port only")
	}
	return u, nil
}

// ParseURL reads scheme://[userinfo@]host[:port][rest]. Without a port the
// scheme's default applies: 443 for https and wss, else 80. It accepts a
// subset of what net/url accepts: DNS names and IP literals only, no
// spaces, control characters or malformed escapes.
func ParseURL(s string) (URL, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !validScheme(scheme) || strings.ContainsFunc(s, badURLRune) {
		return URL{}, reason("not a URL")
	}
	u := URL{Scheme: strings.ToLower(scheme)}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, u.Rest = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		if !validUserinfo(authority[:i]) {
			return URL{}, reason("not a URL")
		}
		u.User, authority = true, authority[i+1:]
	}
	if !validEscapes(u.Rest) {
		return URL{}, reason("not a URL")
	}
	return u.withAuthority(authority)
}

// withAuthority reads host[:port], [v6] or [v6]:port; an empty port (as in
// "host:") keeps the scheme's default, as net/url does.
func (u URL) withAuthority(authority string) (URL, error) {
	if strings.HasPrefix(authority, "[") && strings.HasSuffix(authority, "]") {
		authority += ":"
	}
	host, port, ok := strings.ToLower(authority), "", authority == "" || validHost(authority)
	if strings.ContainsAny(authority, ":[]") {
		host, port, ok = splitHostPort(authority)
	}
	switch {
	case !ok:
		return URL{}, reason("not a URL")
	case host == "":
		return URL{}, reason("no host")
	}
	u.Host, u.Port = host, defaultPort(u.Scheme)
	if port != "" {
		p, ok := parsePort(port)
		if !ok || p == 0 {
			return URL{}, reason("port is not a number in 1-65535")
		}
		u.Port = p
	}
	return u, nil
}

func defaultPort(scheme string) int {
	if scheme == "https" || scheme == "wss" {
		return 443
	}
	return 80
}

// splitHostPort splits host:port or [v6]:port like net.SplitHostPort, but
// also checks the host: a DNS name or IPv4 address, or an IPv6 literal in
// brackets. The host comes back lower-case; the port is not checked.
func splitHostPort(s string) (host, port string, ok bool) {
	if rest, found := strings.CutPrefix(s, "["); found {
		h, after, found := strings.Cut(rest, "]")
		port, hasPort := strings.CutPrefix(after, ":")
		a, err := netip.ParseAddr(h)
		if !found || !hasPort || err != nil || !a.Is6() || a.Zone() != "" {
			return "", "", false
		}
		return strings.ToLower(h), port, true
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 || (i > 0 && !validHost(s[:i])) {
		return "", "", false
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

// parsePort reads a decimal port in 0-65535.
func parsePort(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
		if n > 65535 {
			return 0, false
		}
	}
	return n, true
}
