package route

import "strconv"

// The variables a probe is configured with.
const (
	ListenVar   = "PROBE_LISTEN"
	UpstreamVar = "PROBE_UPSTREAM"
	NameVar     = "PROBE_NAME"
)

// Endpoint is a host and port a process dials or listens on. Host is
// lower-case, without brackets.
type Endpoint struct {
	Host string
	Port int
}

func (e Endpoint) String() string {
	h := e.Host
	for i := 0; i < len(h); i++ {
		if h[i] == ':' {
			h = "[" + h + "]"
			break
		}
	}
	return h + ":" + strconv.Itoa(e.Port)
}

// Route is one probe listener and the broker it relays to.
type Route struct {
	Listen   Endpoint
	Upstream Endpoint
	Name     string // the probe label (PROBE_NAME) when known
}

// Entry is one position of the two lists: the text as written (trimmed)
// and the route it means.
type Entry struct {
	Listen, Upstream string
	Route
}

// Parse pairs PROBE_LISTEN with PROBE_UPSTREAM by position. Both empty
// means no probe. Any bad entry fails the whole list, as it fails the
// probe's start.
func Parse(listen, upstream string) ([]Entry, error) {
	ls, err := Split(ListenVar, listen)
	if err != nil {
		return nil, err
	}
	us, err := Split(UpstreamVar, upstream)
	if err != nil {
		return nil, err
	}
	switch {
	case len(ls) == 0 && len(us) > 0:
		return nil, &Error{Var: ListenVar, Reason: "empty, but " + UpstreamVar + " is set"}
	case len(us) != len(ls):
		return nil, &Error{Var: UpstreamVar, Reason: strconv.Itoa(len(us)) + " entries, but " + ListenVar + " has " + strconv.Itoa(len(ls))}
	}
	var entries []Entry
	for i := range ls {
		l, err := ParseListen(ls[i])
		if err != nil {
			return nil, Named(err, ListenVar, i+1)
		}
		u, err := ParseUpstream(us[i])
		if err != nil {
			return nil, Named(err, UpstreamVar, i+1)
		}
		entries = append(entries, Entry{Listen: ls[i], Upstream: us[i], Route: Route{Listen: l, Upstream: u.Endpoint}})
	}
	return entries, nil
}

// Routes drops the written text from entries.
func Routes(entries []Entry) []Route {
	routes := make([]Route, len(entries))
	for i, e := range entries {
		routes[i] = e.Route
	}
	return routes
}
