// Command burst benches the exporter's scrape path under concurrent
// scrapers. It serves the Docker API to the exporter through a counting
// reverse proxy on a unix socket, starts the exporter on it, then compares
// single scrapes (hey -c 1) with bursts of concurrent ones (hey -c N) and
// counts the Docker API calls each burst makes against one gather's.
//
//	burst -exporter BIN -label KEY=VALUE [-c 50] [-bursts 20] [-singles 50]
//
// DOCKER_HOST (a unix socket) is the real dockerd. Every load is bounded
// in count; the exporter is stopped by its PID.
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	exporter := flag.String("exporter", "", "exporter binary")
	label := flag.String("label", "", "EXPORTER_CONTAINER_LABEL for the bench's containers")
	conc := flag.Int("c", 50, "concurrent scrapers per burst")
	bursts := flag.Int("bursts", 20, "bursts")
	singles := flag.Int("singles", 50, "single scrapes, one at a time")
	flag.Parse()
	if *exporter == "" || *label == "" || *conc < 1 || *bursts < 1 || *singles < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*exporter, *label, *conc, *bursts, *singles); err != nil {
		fmt.Fprintln(os.Stderr, "burst:", err)
		os.Exit(1)
	}
}

func run(bin, label string, conc, bursts, singles int) error {
	upstream, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://")
	if !ok {
		return fmt.Errorf("DOCKER_HOST must be a unix socket")
	}
	dir, err := os.MkdirTemp("", "burst")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	calls, stopProxy, err := countingProxy(filepath.Join(dir, "docker.sock"), upstream)
	if err != nil {
		return err
	}
	defer stopProxy()
	url, stop, err := startExporter(bin, label, "unix://"+filepath.Join(dir, "docker.sock"))
	if err != nil {
		return err
	}
	defer stop()

	if _, err := hey(url, 1, 1); err != nil { // warm-up: API version negotiation
		return err
	}
	before := calls.total()
	if _, err := hey(url, 1, 1); err != nil {
		return err
	}
	perGather := calls.total() - before
	single, err := hey(url, singles, 1)
	if err != nil {
		return err
	}
	var burst []float64
	var perBurst []int
	for range bursts {
		before := calls.total()
		lat, err := hey(url, conc, conc)
		if err != nil {
			return err
		}
		burst = append(burst, lat...)
		perBurst = append(perBurst, calls.total()-before)
	}
	report(os.Stdout, conc, perGather, calls.byKind(), single, burst, perBurst)
	return nil
}

func report(w io.Writer, conc, perGather int, kinds map[string]int, single, burst []float64, perBurst []int) {
	s99, b99 := pct(single, 99), pct(burst, 99)
	one := 0
	for _, n := range perBurst {
		if n == perGather {
			one++
		}
	}
	fmt.Fprintf(w, "single scrape (%d, one at a time):   p50 %.1f ms, p99 %.1f ms\n", len(single), 1000*pct(single, 50), 1000*s99)
	fmt.Fprintf(w, "%d concurrent scrapers (%d bursts): p50 %.1f ms, p99 %.1f ms, max %.1f ms -> p99 %.2fx single (target <= 2x)\n",
		conc, len(perBurst), 1000*pct(burst, 50), 1000*b99, 1000*slices.Max(burst), b99/s99)
	fmt.Fprintf(w, "Docker API calls per gather:         %d\n", perGather)
	fmt.Fprintf(w, "Docker API calls per burst:          %v -> %d of %d bursts equal one gather's\n", perBurst, one, len(perBurst))
	fmt.Fprintf(w, "Docker API calls by kind, whole run: %v\n", kinds)
}

// pct is the p-th percentile (nearest rank).
func pct(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// hey runs n scrapes of url with c workers and returns each latency in
// seconds; a status other than 200 is an error.
func hey(url string, n, c int) ([]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "hey", "-n", strconv.Itoa(n), "-c", strconv.Itoa(c), "-t", "30", "-o", "csv", url).Output()
	if err != nil {
		return nil, fmt.Errorf("hey: %w", err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("hey output: %v", err)
	}
	var lat []float64
	for _, r := range rows[1:] {
		if len(r) < 7 || r[6] != "200" {
			return nil, fmt.Errorf("a scrape answered %v", r)
		}
		v, err := strconv.ParseFloat(r[0], 64)
		if err != nil {
			return nil, err
		}
		lat = append(lat, v)
	}
	if len(lat) != n {
		return nil, fmt.Errorf("hey returned %d of %d scrapes", len(lat), n)
	}
	return lat, nil
}

// counter counts proxied Docker API calls by kind.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(kind string) {
	c.mu.Lock()
	c.n[kind]++
	c.mu.Unlock()
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := 0
	for _, v := range c.n {
		t += v
	}
	return t
}

func (c *counter) byKind() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// kind names a Docker API call: list, inspect, stats, ping, or the path.
func kind(r *http.Request) string {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/_ping"):
		return "ping"
	case strings.HasSuffix(p, "/containers/json"):
		return "list"
	case strings.HasSuffix(p, "/json") && strings.Contains(p, "/containers/"):
		return "inspect"
	case strings.HasSuffix(p, "/stats"):
		return "stats"
	}
	return r.Method + " " + p
}

// countingProxy serves the Docker API on sock, passing every call to the
// dockerd socket upstream and counting it.
func countingProxy(sock, upstream string) (*counter, func(), error) {
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, nil, err
	}
	c := &counter{n: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", "docker"
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", upstream)
		}},
		FlushInterval: -1,
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(kind(r))
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	return c, func() { _ = srv.Close() }, nil
}

// startExporter runs bin against docker on a free loopback port, with the
// cgroup files and no Redis, and waits for /healthz.
func startExporter(bin, label, docker string) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "EXPORTER_LISTEN="+addr, "DOCKER_HOST="+docker, "EXPORTER_CONTAINER_LABEL="+label,
		"QUEUE_BULL_REDIS_HOST=", "EXPORTER_SERVICE_TIME=1s", "EXPORTER_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	for range 100 {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return "http://" + addr + "/metrics", stop, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("the exporter did not answer /healthz within 10 s")
}
