package dockerstats

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// n8n's defaults for the settings below (n8n 2.23.2).
const (
	DefaultConcurrency = 10
	DefaultRunnerLimit = 10
	DefaultBrokerPort  = 5679
	DefaultN8nPort     = 5678
)

// settingKeys is the whitelist: the only env keys whose values are read.
// Everything else in a container's env (tokens, keys, passwords) is skipped
// without being copied.
var settingKeys = map[string]bool{
	"N8N_CONCURRENCY_PRODUCTION_LIMIT": true,
	"N8N_RUNNERS_MAX_CONCURRENCY":      true,
	"N8N_RUNNERS_BROKER_PORT":          true,
	"N8N_RUNNERS_TASK_BROKER_URI":      true,
	"N8N_PORT":                         true,
	"PROBE_LISTEN":                     true,
	"PROBE_UPSTREAM":                   true,
}

// Endpoint is a host and port a process dials or listens on.
type Endpoint struct {
	Host string
	Port int
}

func (e Endpoint) String() string { return net.JoinHostPort(e.Host, strconv.Itoa(e.Port)) }

// readEnv splits env into the whitelisted values and the set of all keys.
func readEnv(env []string) (values map[string]string, keys map[string]bool) {
	values, keys = map[string]string{}, map[string]bool{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		keys[k] = true
		if settingKeys[k] {
			values[k] = v
		}
	}
	return values, keys
}

// settings holds the parsed whitelisted values plus the problems found,
// each naming the variable but never its value.
type settings struct {
	values   map[string]string
	problems []string
}

func (s *settings) positiveInt(key string, def int) int {
	v, ok := s.values[key]
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		s.problems = append(s.problems, fmt.Sprintf("%s is not a positive integer; using %d", key, def))
		return def
	}
	return n
}

// workerConcurrency follows n8n: N8N_CONCURRENCY_PRODUCTION_LIMIT wins
// unless it is -1, then --concurrency, then 10.
func (s *settings) workerConcurrency(args []string) int {
	const key = "N8N_CONCURRENCY_PRODUCTION_LIMIT"
	v := strings.TrimSpace(s.values[key])
	if v == "" || v == "-1" {
		return concurrencyFlag(args, s)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		s.problems = append(s.problems, key+" is neither -1 nor a positive integer; ignored")
		return concurrencyFlag(args, s)
	}
	return n
}

// concurrencyFlag reads `--concurrency=N` or `--concurrency N`.
func concurrencyFlag(args []string, s *settings) int {
	for i, a := range args {
		var v string
		switch {
		case strings.HasPrefix(a, "--concurrency="):
			v = strings.TrimPrefix(a, "--concurrency=")
		case a == "--concurrency" && i+1 < len(args):
			v = args[i+1]
		default:
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			s.problems = append(s.problems, fmt.Sprintf("--concurrency is not a positive integer; using %d", DefaultConcurrency))
			return DefaultConcurrency
		}
		return n
	}
	return DefaultConcurrency
}

// brokerURI parses N8N_RUNNERS_TASK_BROKER_URI (default
// http://127.0.0.1:5679) down to host and port; any userinfo is dropped.
func (s *settings) brokerURI() Endpoint {
	def := Endpoint{Host: "127.0.0.1", Port: DefaultBrokerPort}
	v, ok := s.values["N8N_RUNNERS_TASK_BROKER_URI"]
	if !ok || v == "" {
		return def
	}
	ep, err := parseURLEndpoint(v)
	if err != nil {
		s.problems = append(s.problems, "N8N_RUNNERS_TASK_BROKER_URI is not a URL with a host")
		return def
	}
	return ep
}

func parseURLEndpoint(raw string) (Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return Endpoint{}, fmt.Errorf("no host")
	}
	port := 80
	if u.Scheme == "https" || u.Scheme == "wss" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return Endpoint{}, err
		}
	}
	return Endpoint{Host: strings.ToLower(u.Hostname()), Port: port}, nil
}

// probeRoutes pairs PROBE_LISTEN (host:port list) with PROBE_UPSTREAM (URL
// list) by position.
func (s *settings) probeRoutes() []Route {
	listen := splitList(s.values["PROBE_LISTEN"])
	upstream := splitList(s.values["PROBE_UPSTREAM"])
	if len(listen) != len(upstream) {
		s.problems = append(s.problems, "PROBE_LISTEN and PROBE_UPSTREAM differ in length")
	}
	var routes []Route
	for i := 0; i < min(len(listen), len(upstream)); i++ {
		l, err1 := parseHostPort(listen[i])
		u, err2 := parseURLEndpoint(upstream[i])
		if err1 != nil || err2 != nil {
			s.problems = append(s.problems, fmt.Sprintf("PROBE_LISTEN/PROBE_UPSTREAM entry %d is malformed", i+1))
			continue
		}
		routes = append(routes, Route{Listen: l, Upstream: u})
	}
	return routes
}

func parseHostPort(hp string) (Endpoint, error) {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		return Endpoint{}, err
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return Endpoint{}, err
	}
	if h == "" {
		h = "0.0.0.0"
	}
	return Endpoint{Host: strings.ToLower(h), Port: n}, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
