package main

import (
	"fmt"
	"strconv"
	"strings"
)

// stringList collects a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// rateList is a comma list of arrival rates, e.g. "2,4,8/s" or "0.5,1".
// A trailing /s is allowed on the list or on each item.
type rateList []float64

func (l *rateList) String() string {
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",") + "/s"
}

func (l *rateList) Set(s string) error {
	var out rateList
	for _, p := range strings.Split(strings.TrimSuffix(strings.TrimSpace(s), "/s"), ",") {
		p = strings.TrimSuffix(strings.TrimSpace(p), "/s")
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v > 0) {
			return fmt.Errorf("%q is not a positive rate per second", p)
		}
		out = append(out, v)
	}
	*l = out
	return nil
}
