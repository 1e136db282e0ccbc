package brokerprobe

import (
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfigs(t *testing.T) {
	got, err := ParseConfigs(":5690, :5691", "http://w1:5689,http://w2:5689", "runner-1,runner-2")
	want := []Config{{Name: "runner-1", Listen: ":5690", Upstream: "http://w1:5689"}, {Name: "runner-2", Listen: ":5691", Upstream: "http://w2:5689"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v %v", got, err)
	}
	got, err = ParseConfigs(":5690", "http://w1:5689", "")
	if err != nil || len(got) != 1 || got[0].Name != "probe-1" {
		t.Fatalf("default name: %v %v", got, err)
	}
	if got, err := ParseConfigs("", "", ""); got != nil || err != nil {
		t.Fatalf("unset: %v %v", got, err)
	}
}

func TestParseConfigsErrorsNameTheVariable(t *testing.T) {
	cases := []struct{ listen, upstream, name, variable string }{
		{"", "http://w:5689", "", "PROBE_LISTEN"},
		{":5690,:5691", "http://w:5689", "", "PROBE_UPSTREAM"},
		{":5690", "http://w:5689", "a,b", "PROBE_NAME"},
		{"5690", "http://w:5689", "a", "PROBE_LISTEN"},
		{":5690", "ws://w:5689", "a", "PROBE_UPSTREAM"},
		{":5690", "http://", "a", "PROBE_UPSTREAM"},
		{":5690", "http://w:5689/runners", "a", "PROBE_UPSTREAM"},
		{":5690", "http://user:hunter2@w:5689", "a", "PROBE_UPSTREAM"},
		{":5690", "http://w:5689\x7f", "a", "PROBE_UPSTREAM"},
		{":5690,:5691", "http://w:5689,http://w:5689", "a,a", "PROBE_NAME"},
		{":5690,:5690", "http://w:5689,http://w:5689", "a,b", "PROBE_LISTEN"},
		// An empty entry would shift the lists paired by position.
		{":5690,,:5691", "http://w:5689,http://w:5689,http://w:5689", "", "PROBE_LISTEN"},
		{":5690,:5691", "http://w:5689,http://w:5689,", "", "PROBE_UPSTREAM"},
		{":5690", "http://w:5689", "a,", "PROBE_NAME"},
		{"", "", "a", "PROBE_LISTEN"},
	}
	for _, c := range cases {
		_, err := ParseConfigs(c.listen, c.upstream, c.name)
		if err == nil || !strings.Contains(err.Error(), c.variable) {
			t.Errorf("%q %q %q: error %v does not name %s", c.listen, c.upstream, c.name, err, c.variable)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}

func TestNewValidates(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(Config{Name: "x", Listen: ":1", Upstream: "ftp://w"}, logger); err == nil {
		t.Error("bad upstream accepted")
	}
	if _, err := New(Config{Name: "x", Listen: ":1", Upstream: "http://w:5689"}, nil); err == nil {
		t.Error("nil logger accepted")
	}
	if _, err := New(Config{Name: "x", Listen: ":1", Upstream: "https://w:5689"}, logger); err != nil {
		t.Error(err)
	}
}
