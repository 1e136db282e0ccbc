package route

import "strings"

// validHost accepts DNS names and IPv4 addresses: letters, digits, '-',
// '.' and '_'.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !isAlnum(h[i]) && !strings.ContainsRune("-._", rune(h[i])) {
			return false
		}
	}
	return true
}

// validScheme is RFC 3986's scheme: a letter, then letters, digits, '+',
// '-' or '.'.
func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isAlnum(s[i]) && !strings.ContainsRune("+-.", rune(s[i])) {
			return false
		}
	}
	return true
}

// validUserinfo allows RFC 3986's userinfo characters with valid escapes.
func validUserinfo(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && !strings.ContainsRune("-._~!$&'()*+,;=:%@", rune(s[i])) {
			return false
		}
	}
	return validEscapes(s)
}

// validEscapes checks that every '%' starts a two-digit hex escape.
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
	}
	return true
}

// badURLRune rejects spaces, control characters and non-ASCII.
func badURLRune(r rune) bool { return r <= ' ' || r >= 0x7f }

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isLetter(c) || '0' <= c && c <= '9' }
func isHex(c byte) bool    { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }
