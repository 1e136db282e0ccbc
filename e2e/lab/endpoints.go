package lab

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
)

// Endpoints maps the names up.sh prints (webhook, main-metrics,
// worker-metrics-1, broker-1, redis, docker-host, …) to their URLs.
type Endpoints map[string]string

// ParseEndpoints reads `lab: <name> <url>` lines and ignores all others, so
// it can read up.sh's whole output.
func ParseEndpoints(r io.Reader) (Endpoints, error) {
	eps := Endpoints{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "lab: ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 {
			return nil, fmt.Errorf("lab line %q: want `lab: <name> <url>`", sc.Text())
		}
		if _, err := url.Parse(f[1]); err != nil {
			return nil, fmt.Errorf("lab line %q: %w", sc.Text(), err)
		}
		eps[f[0]] = f[1]
	}
	return eps, sc.Err()
}

// Must returns the named endpoint or an error that lists the known ones.
func (e Endpoints) Must(name string) (string, error) {
	if u, ok := e[name]; ok {
		return u, nil
	}
	names := make([]string, 0, len(e))
	for n := range e {
		names = append(names, n)
	}
	sort.Strings(names)
	return "", fmt.Errorf("lab printed no %q endpoint (have %s)", name, strings.Join(names, ", "))
}
