package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces every hidden value.
const Mask = "xxxxx"

// URL hides the userinfo password and every query value of one URL:
// http://u:P@host/hook?token=T&x becomes
// http://u:xxxxx@host/hook?token=xxxxx&xxxxx. A query part without '='
// may itself be a token, so it is hidden whole; key=value pairs in the
// fragment are treated like the query. It works on the text, so a URL
// that does not parse is redacted too; text without "://" is returned
// as it is.
func URL(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	head, rest := s[:i+3], s[i+3:]
	end := userinfoEnd(s, rest)
	if end >= 0 {
		if c := strings.IndexByte(rest[:end], ':'); c >= 0 {
			rest = rest[:c+1] + Mask + rest[end:]
		}
	}
	q := strings.IndexAny(rest, "?#")
	if q < 0 {
		return head + rest
	}
	return head + rest[:q] + pairs(rest[q:])
}

// userinfoEnd is the index in rest (s after "://") of the '@' that ends
// the userinfo, or -1. For a URL that parses, the authority ends at the
// first '/', '?' or '#', as clients read it; for one that does not (a
// password holding '/' or '#'), the last '@' before the query counts, so
// the whole password is hidden.
func userinfoEnd(s, rest string) int {
	if _, err := url.Parse(s); err == nil {
		auth := rest
		if e := strings.IndexAny(rest, "/?#"); e >= 0 {
			auth = rest[:e]
		}
		return strings.LastIndexByte(auth, '@')
	}
	region := rest
	if e := strings.IndexByte(rest, '?'); e >= 0 {
		region = rest[:e]
	}
	return strings.LastIndexByte(region, '@')
}

// pairs hides the values of a "?query#fragment" tail; the fragment is
// left alone unless it holds key=value pairs.
func pairs(tail string) string {
	var b strings.Builder
	for tail != "" {
		sep := tail[0] // '?' or '#'
		body := tail[1:]
		next := ""
		if sep == '?' {
			if h := strings.IndexByte(body, '#'); h >= 0 {
				body, next = body[:h], body[h:]
			}
		}
		b.WriteByte(sep)
		if sep == '?' || strings.Contains(body, "=") {
			body = hideValues(body)
		}
		b.WriteString(body)
		tail = next
	}
	return b.String()
}

func hideValues(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		switch {
		case ok && v != "":
			parts[i] = k + "=" + Mask
		case !ok && p != "":
			parts[i] = Mask
		}
	}
	return strings.Join(parts, "&")
}

// URLs redacts each URL.
func URLs(urls []string) []string {
	if urls == nil {
		return nil
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = URL(u)
	}
	return out
}

// inText matches a URL in free text: a scheme, "://", then anything up
// to white space, a quote, an angle bracket or a backslash (Go quotes
// URLs in errors with %q; JSON escapes with backslashes).
var inText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'`<>\\\\]+")

// trailing is punctuation that ends a sentence rather than the URL.
const trailing = ".,:;!?)]}"

// Text redacts every URL in s.
func Text(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return inText.ReplaceAllStringFunc(s, func(m string) string {
		u := strings.TrimRight(m, trailing)
		return URL(u) + m[len(u):]
	})
}
