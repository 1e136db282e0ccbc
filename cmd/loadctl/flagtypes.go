package main

import (
	"fmt"
	"strconv"
	"strings"
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
