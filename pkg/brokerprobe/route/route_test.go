package route

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse("127.0.0.1:5711, :5712,[::1]:5713", "http://127.0.0.1:5689,http://N8N-Worker-2:5679/, https://w3")
	want := []Entry{
		{"127.0.0.1:5711", "http://127.0.0.1:5689", Route{Endpoint{"127.0.0.1", 5711}, Endpoint{"127.0.0.1", 5689}, ""}},
		{":5712", "http://N8N-Worker-2:5679/", Route{Endpoint{"0.0.0.0", 5712}, Endpoint{"n8n-worker-2", 5679}, ""}},
		{"[::1]:5713", "https://w3", Route{Endpoint{"::1", 5713}, Endpoint{"w3", 443}, ""}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if routes := Routes(got); len(routes) != 3 || routes[2] != want[2].Route {
		t.Errorf("routes %+v", routes)
	}
	if got, err := Parse("", " "); got != nil || err != nil {
		t.Errorf("unset: %v %v", got, err)
	}
}

// Every error names the variable (and the entry in a list), never the
// value.
func TestParseErrors(t *testing.T) {
	cases := []struct{ listen, upstream, want string }{
		{"", "http://w:5689", "PROBE_LISTEN: empty, but PROBE_UPSTREAM is set"},
		{":5690,:5691", "http://w:5689", "PROBE_UPSTREAM: 1 entries, but PROBE_LISTEN has 2"},
		{":5690", "", "PROBE_UPSTREAM: 0 entries, but PROBE_LISTEN has 1"},
		{":5690,,:5691", "http://a,http://b,http://c", "PROBE_LISTEN entry 2: empty"},
		{":5690,", "http://a,http://b", "PROBE_LISTEN entry 2: empty"},
		{":5690", ",http://a", "PROBE_UPSTREAM entry 1: empty"},
		{":5690,5691", "http://a,http://b", "PROBE_LISTEN entry 2: want host:port"},
		{":5690,:http", "http://a,http://b", "PROBE_LISTEN entry 2: port is not a number in 0-65535"},
		{":5690", "ws://w:5689", "PROBE_UPSTREAM entry 1: scheme must be http or https"},
		{":5690", "http://", "PROBE_UPSTREAM entry 1: no host"},
		{":5690", "http://w:5689/runners", "PROBE_UPSTREAM entry 1: give scheme://host:port only"},
		{":5690", "http://w:5689?x=1", "PROBE_UPSTREAM entry 1: give scheme://host:port only"},
		{":5690", "http://user:hunter2@w:5689", "PROBE_UPSTREAM entry 1: credentials in the URL are not allowed"},
		{":5690", "http://w:5689\x7f", "PROBE_UPSTREAM entry 1: not a URL"},
		{":5690", "http://w:99999", "PROBE_UPSTREAM entry 1: port is not a number in 1-65535"},
	}
	for _, c := range cases {
		_, err := Parse(c.listen, c.upstream)
		var e *Error
		if err == nil || err.Error() != c.want || !errors.As(err, &e) {
			t.Errorf("%q %q: error %v, want %q", c.listen, c.upstream, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{"": nil, "  ": nil, "a": {"a"}, " a , b ": {"a", "b"}} {
		if got, err := Split(NameVar, in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, %v", in, got, err)
		}
	}
	for in, entry := range map[string]int{",": 1, "a,": 2, "a, ,b": 2, ",a": 1} {
		_, err := Split(NameVar, in)
		var e *Error
		if !errors.As(err, &e) || e.Var != NameVar || e.Entry != entry {
			t.Errorf("Split(%q): %v, want PROBE_NAME entry %d", in, err, entry)
		}
	}
}

func TestParseURL(t *testing.T) {
	cases := map[string]URL{
		"http://127.0.0.1:5679":              {Scheme: "http", Endpoint: Endpoint{"127.0.0.1", 5679}},
		"HTTP://n8n-Worker:5679":             {Scheme: "http", Endpoint: Endpoint{"n8n-worker", 5679}},
		"https://user:pw@broker.example/x?y": {Scheme: "https", Endpoint: Endpoint{"broker.example", 443}, User: true, Rest: "/x?y"},
		"wss://b":                            {Scheme: "wss", Endpoint: Endpoint{"b", 443}},
		"ws://b:":                            {Scheme: "ws", Endpoint: Endpoint{"b", 80}},
		"http://[FD00::5]:5679/":             {Scheme: "http", Endpoint: Endpoint{"fd00::5", 5679}, Rest: "/"},
		"http://[::1]":                       {Scheme: "http", Endpoint: Endpoint{"::1", 80}},
	}
	for in, want := range cases {
		if got, err := ParseURL(in); err != nil || got != want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"::not a url", "localhost:5679", "127.0.0.1:5679", "http://:5679", "http://w:5679:1",
		"http://[::1", "http://[::1]x", "http://[1.2.3.4]:80", "http://w x", "http://w/%zz", "http://a[b@w", "1http://w", "http://w:0"} {
		if u, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted: %+v", bad, u)
		}
	}
}

func TestEndpointString(t *testing.T) {
	if s := (Endpoint{"fd00::5", 5679}).String(); s != "[fd00::5]:5679" {
		t.Errorf("v6: %s", s)
	}
	if s := (Endpoint{"n8n-worker", 5679}).String(); s != "n8n-worker:5679" {
		t.Errorf("name: %s", s)
	}
}

// PROBE_NAME names the routes by position, or defaults to probe-1, …; a
// count that differs from PROBE_LISTEN's, or names without routes, is
// refused as the probe refuses it.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		value string
		n     int
		want  []string
		err   string
	}{
		{"", 2, []string{"probe-1", "probe-2"}, ""},
		{" w1 ,w2", 2, []string{"w1", "w2"}, ""},
		{"", 0, nil, ""},
		{"w1", 2, nil, "PROBE_NAME: 1 entries, but PROBE_LISTEN has 2"},
		{"w1", 0, nil, "PROBE_LISTEN: empty, but PROBE_NAME is set"},
		{"w1,", 1, nil, "PROBE_NAME entry 2: empty"},
	} {
		got, err := Names(c.value, c.n)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("Names(%q, %d): error %v, want %q", c.value, c.n, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Names(%q, %d) = %q, %v; want %q", c.value, c.n, got, err, c.want)
		}
	}
}
