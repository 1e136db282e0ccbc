package route

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

var seeds = []string{"http://127.0.0.1:5689", "https://w", "HTTP://W:0080/", "http://[::1]:5679", "http://u:p@w:1/x?q#f",
	":5711", "127.0.0.1:5711", "[fe80::1]:1", "w:", "http://w:", "ws://[::ffff:1.2.3.4]", "http://%41:1", "x://a%2"}

// Whatever ParseURL accepts, net/url parses to the same host and port, so
// the probe's url.Parse after ParseUpstream cannot fail or disagree.
func FuzzParseURLAgreesWithNetURL(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseURL(s)
		if err != nil {
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("ParseURL accepted %q, net/url: %v", s, err)
		}
		port := strconv.Itoa(got.Port)
		if u.Port() != "" {
			p, _ := strconv.Atoi(u.Port())
			port = strconv.Itoa(p)
		}
		if strings.ToLower(u.Scheme) != got.Scheme || strings.ToLower(u.Hostname()) != got.Host || port != strconv.Itoa(got.Port) || (u.User != nil) != got.User {
			t.Fatalf("%q: ParseURL %+v, net/url scheme %q host %q port %q user %v", s, got, u.Scheme, u.Hostname(), u.Port(), u.User)
		}
		if _, err := ParseUpstream(s); err == nil && (u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "") {
			t.Fatalf("ParseUpstream accepted %q: %+v", s, u)
		}
	})
}

// Whatever ParseListen accepts, net.SplitHostPort splits the same way.
func FuzzParseListenAgreesWithNet(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseListen(s)
		if err != nil {
			return
		}
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			t.Fatalf("ParseListen accepted %q, net: %v", s, err)
		}
		n, err := strconv.Atoi(p)
		if h == "" {
			h = "0.0.0.0"
		}
		if err != nil || n != got.Port || strings.ToLower(h) != got.Host {
			t.Fatalf("%q: ParseListen %+v, net %q %q", s, got, h, p)
		}
	})
}
