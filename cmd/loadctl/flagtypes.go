package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// intList is a comma-separated list of positive integers, e.g. "10,10".
type intList []int

func (l *intList) String() string {
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(s string) error {
	var out intList
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v <= 0 {
			return fmt.Errorf("%q is not a positive integer", p)
		}
		out = append(out, v)
	}
	*l = out
	return nil
}

// demand is one name=duration entry of a demand list.
type demand struct {
	name    string
	seconds float64
}

// demandList is a comma list of per-execution demands, e.g.
// "main=12ms,worker=9ms", kept in the order given.
type demandList []demand

func (l *demandList) String() string {
	parts := make([]string, len(*l))
	for i, d := range *l {
		parts[i] = d.name + "=" + time.Duration(d.seconds*float64(time.Second)).String()
	}
	return strings.Join(parts, ",")
}

func (l *demandList) Set(s string) error {
	var out demandList
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("%q: want name=duration, e.g. main=12ms", p)
		}
		d, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil || d < 0 {
			return fmt.Errorf("%q: want a duration of 0 or more, e.g. 12ms", p)
		}
		if seen[name] {
			return fmt.Errorf("%q is named twice", name)
		}
		seen[name] = true
		out = append(out, demand{name: name, seconds: d.Seconds()})
	}
	*l = out
	return nil
}
