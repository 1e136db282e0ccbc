package redact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/internal/testtool"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:P@host/hook?token=T":             "http://u:xxxxx@host/hook?token=xxxxx",
		"http://u:P2@host/metrics?auth=T2":         "http://u:xxxxx@host/metrics?auth=xxxxx",
		"https://host:8443/a/b?x=1&y=&z&=v#frag":   "https://host:8443/a/b?x=xxxxx&y=&xxxxx&=xxxxx#frag",
		"http://host/cb#access_token=abc&state=1":  "http://host/cb#access_token=xxxxx&state=xxxxx",
		"http://u@host/p":                          "http://u@host/p",
		"http://host/@scope/pkg":                   "http://host/@scope/pkg",
		"http://127.0.0.1:5678/webhook/bench":      "http://127.0.0.1:5678/webhook/bench",
		"http://u:pa/ss#x@host/p":                  "http://u:xxxxx@host/p",
		"http://u:p@ss@host/p?q=secret%zz":         "http://u:xxxxx@host/p?q=xxxxx",
		"http://u:P@host?token=T":                  "http://u:xxxxx@host?token=xxxxx",
		"localhost:9810":                           "localhost:9810",
		"":                                         "",
		"http://host/hook?":                        "http://host/hook?",
		"http://host/p?a=1;token=T":                "http://host/p?a=xxxxx",
		"redis://:s3cretpw@redis:6379/0":           "redis://:xxxxx@redis:6379/0",
		"http://u:P@host/hook?token=T&token=T&t=T": "http://u:xxxxx@host/hook?token=xxxxx&token=xxxxx&t=xxxxx",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func assertNoSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, tok := range []string{":P@", ":P2@", "=T", "=T2", "token=T", "auth=T2"} {
		if strings.Contains(s, tok) {
			t.Errorf("%s: %q still holds %q", where, s, tok)
		}
	}
}

// Real errors from net/url and net/http quote the URL they failed on;
// Text finds it and keeps the rest of the message.
func TestTextInGoErrors(t *testing.T) {
	closed := testtool.ClosedAddr(t)
	hook := "http://u:P@" + closed + "/hook?token=T"
	_, postErr := (&http.Client{Timeout: 5 * time.Second}).Post(hook, "application/json", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://u:P2@"+closed+"/metrics?auth=T2", nil)
	_, getErr := http.DefaultClient.Do(req)
	_, parseErr := url.Parse("http://u:P@host/%zz?token=T") //nolint:staticcheck // SA1007: invalid on purpose, for url.Parse's error
	wrapped := fmt.Errorf("scrape http://u:xxxxx@host/metrics?auth=T2: %w", getErr)
	for _, e := range []error{postErr, getErr, parseErr, wrapped, errors.Join(postErr, getErr)} {
		if e == nil {
			t.Fatal("expected an error")
		}
		got := Text(e.Error())
		assertNoSecret(t, "Text", got)
		if !strings.Contains(got, "xxxxx") {
			t.Errorf("Text(%q) = %q: nothing hidden", e.Error(), got)
		}
	}
	got := Text(postErr.Error())
	want := `Post "http://u:xxxxx@` + closed + `/hook?token=xxxxx": dial tcp ` + closed + ": connect: connection refused"
	if got != want {
		t.Errorf("Text(%q)\n = %q\nwant %q", postErr.Error(), got, want)
	}
	if got := Text(wrapped.Error()); !strings.HasPrefix(got, "scrape http://u:xxxxx@host/metrics?auth=xxxxx: Get ") {
		t.Errorf("sentence punctuation after a URL is kept: %q", got)
	}
}

func TestTextLeavesPlainTextAlone(t *testing.T) {
	for _, s := range []string{"", "dial tcp 127.0.0.1:1: connect: connection refused", "HTTP 500 Internal Server Error",
		`check ok==true failed on body "{\"ok\":false}"`, "see http://host/docs."} {
		if got := Text(s); got != s {
			t.Errorf("Text(%q) = %q", s, got)
		}
	}
	// JSON escapes keep JSON valid: the match stops at a backslash.
	if got := Text(`"http://host/p?a=b\"c"`); got != `"http://host/p?a=xxxxx\"c"` {
		t.Errorf("escaped quote: %q", got)
	}
}

func TestSecretsByValue(t *testing.T) {
	env := []string{"N8N_RUNNERS_AUTH_TOKEN=runner-s3cret", "DB_PASSWORD=hunter22", "API_KEY=1", "AUTH_ENABLED=true",
		"PWD=/work/dir", "HOME=/root", "MY_SECRET=hunter22-long", "Empty_token="}
	s := EnvSecrets(env)
	in := "token runner-s3cret, pw hunter22, long hunter22-long, key 1, auth true, in /work/dir, http://u:P@h/?token=T"
	got := s.Text(in)
	want := "token xxxxx, pw xxxxx, long xxxxx, key 1, auth true, in /work/dir, http://u:xxxxx@h/?token=xxxxx"
	if got != want {
		t.Errorf("Text = %q\nwant %q", got, want)
	}
	var zero *Secrets
	if got := zero.Text("http://u:P@h/"); got != "http://u:xxxxx@h/" {
		t.Errorf("nil Secrets: %q", got)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := Writer{W: &buf}
	n, err := fmt.Fprintf(w, "loadctl sweep: against %s\n", "http://u:P@host/hook?token=T")
	if err != nil || n != len("loadctl sweep: against http://u:P@host/hook?token=T\n") {
		t.Errorf("n %d err %v: want the caller's length", n, err)
	}
	if buf.String() != "loadctl sweep: against http://u:xxxxx@host/hook?token=xxxxx\n" {
		t.Errorf("wrote %q", buf.String())
	}
}

func TestJSON(t *testing.T) {
	in := `{"settings":{"urls":["http://u:P@h/hook?token=T"],"exporter":"http://u:P2@h/m?auth=T2","n":12345678901234567890.5},
"steps":[{"exporter":{"error":"scrape: Get \"http://u:P2@h/m?auth=T2\": refused"}}],"k":"plain"}`
	out, err := JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	assertNoSecret(t, "JSON", s)
	for _, want := range []string{`"n":12345678901234567890.5`, `"k":"plain"`, `http://u:xxxxx@h/hook?token=xxxxx`, `auth=xxxxx\"`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s: %s", want, s)
		}
	}
	if _, err := JSON([]byte("{")); err == nil {
		t.Error("truncated JSON accepted")
	}
}
