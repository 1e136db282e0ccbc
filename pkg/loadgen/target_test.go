package loadgen

import "testing"

// CheckMethod takes net/http's token rule: any case, no white space or
// separators, not empty.
func TestCheckMethod(t *testing.T) {
	for _, m := range []string{"GET", "POST", "get", "PROPFIND", "M-SEARCH", "X_Y.Z~1!"} {
		if err := CheckMethod(m); err != nil {
			t.Errorf("%q: %v", m, err)
		}
	}
	for _, m := range []string{"", "GE\tT", "ge t", "GET ", "P(OST)", "GÉT", "a/b", "x\n"} {
		if err := CheckMethod(m); err == nil {
			t.Errorf("%q accepted", m)
		}
	}
}
