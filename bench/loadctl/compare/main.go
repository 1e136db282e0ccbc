// Command compare runs the loadctl bench: the same trivial server driven
// by loadctl (closed loop), hey and wrk with the same connection count and
// duration, then loadctl in open loop at a fixed rate. It prints each
// tool's req/s, the ratios, the achieved open-loop rate and loadctl's own
// CPU. Every child is started here and stopped by its PID.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

type config struct {
	loadctl, server string
	conns           int
	duration        time.Duration
	rate            float64
	rateDuration    time.Duration
	rounds          int
	dir             string
}

const body = `{"sleep_ms":0,"alloc_mb":0}`

func main() {
	var c config
	flag.StringVar(&c.loadctl, "loadctl", "", "loadctl binary")
	flag.StringVar(&c.server, "server", "", "bench server binary")
	flag.IntVar(&c.conns, "c", 50, "connections / VUs")
	flag.DurationVar(&c.duration, "d", 10*time.Second, "closed-loop duration per tool")
	flag.Float64Var(&c.rate, "rate", 2000, "open-loop target rate per second")
	flag.DurationVar(&c.rateDuration, "rate-d", 10*time.Second, "open-loop duration")
	flag.IntVar(&c.rounds, "rounds", 2, "closed-loop rounds; tools alternate within each round and the best round counts")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "loadctl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c.dir = dir
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	srv := exec.Command(c.server, "-listen", addr)
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	url := "http://" + addr + "/webhook/bench"
	if err := waitUp(addr); err != nil {
		return err
	}
	tools := []struct {
		name string
		run  func(string) (float64, error)
	}{{"loadctl", c.loadctlClosed}, {"hey", c.hey}, {"wrk", c.wrk}}
	best := map[string]float64{}
	fmt.Printf("closed loop, %d connections, %v per tool, same server, %d alternating rounds:\n", c.conns, c.duration, c.rounds)
	for r := range max(1, c.rounds) {
		for _, t := range tools {
			rps, err := t.run(url)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			fmt.Printf("  round %d  %-8s %10.0f req/s\n", r+1, t.name, rps)
			best[t.name] = max(best[t.name], rps)
		}
	}
	lc, hey, wrk := best["loadctl"], best["hey"], best["wrk"]
	fmt.Printf("  best: loadctl %.0f, hey %.0f, wrk %.0f req/s\n", lc, hey, wrk)
	fmt.Printf("  loadctl/hey %.2fx (goal >= 1.00x)   loadctl/wrk %.2fx\n", lc/hey, lc/wrk)
	return c.openLoop(url)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitUp polls the server's port, bounded to 10 s.
func waitUp(addr string) error {
	for range 100 {
		if conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			conn.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("bench server did not start")
}

// sweep runs loadctl and returns its result and CPU seconds.
func (c config) sweep(args ...string) (*loadgen.Result, time.Duration, error) {
	out := filepath.Join(c.dir, "result.json")
	args = append([]string{"sweep", "--warmup", "1s", "--metrics-listen", "", "--quiet", "--body", body, "--out", out}, args...)
	cmd := exec.Command(c.loadctl, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	f, err := os.Open(out)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	res, err := loadgen.ReadJSON(f)
	return res, cpu, err
}

func (c config) loadctlClosed(url string) (float64, error) {
	res, _, err := c.sweep("--url", url, "--vus", strconv.Itoa(c.conns), "--step", c.duration.String())
	if err != nil {
		return 0, err
	}
	if res.Total.PassRate < 1 {
		return 0, fmt.Errorf("pass rate %.4f, errors %v", res.Total.PassRate, res.Total.Errors)
	}
	return res.Total.Throughput, nil
}

var reqPerSec = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

func (c config) tool(name string, args ...string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.duration+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	m := reqPerSec.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no Requests/sec in output:\n%s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

func (c config) hey(url string) (float64, error) {
	return c.tool("hey", "-c", strconv.Itoa(c.conns), "-z", c.duration.String(), "-m", "POST",
		"-T", "application/json", "-d", body, url)
}

func (c config) wrk(url string) (float64, error) {
	script := filepath.Join(c.dir, "post.lua")
	lua := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = '%s'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n", body)
	if err := os.WriteFile(script, []byte(lua), 0o644); err != nil {
		return 0, err
	}
	return c.tool("wrk", "-t", "2", "-c", strconv.Itoa(c.conns), "-d", fmt.Sprintf("%ds", int(c.duration.Seconds())), "-s", script, url)
}

// openLoop reports the achieved rate (requests sent and answered inside
// the measured window) against the target, and loadctl's CPU.
func (c config) openLoop(url string) error {
	res, cpu, err := c.sweep("--url", url, "--rate", strconv.FormatFloat(c.rate, 'f', -1, 64), "--step", c.rateDuration.String())
	if err != nil {
		return fmt.Errorf("loadctl open loop: %w", err)
	}
	t := res.Total
	answered := float64(t.Requests-t.Errors["dropped"]) / t.WindowSeconds
	wall := res.Finished.Sub(res.Started)
	fmt.Printf("open loop, target %.0f req/s for %v (+1s warm-up):\n", c.rate, c.rateDuration)
	fmt.Printf("  achieved %.1f req/s (%.2f%% of target), passing %.1f req/s, dropped %d, late starts %d, p99 %s\n",
		answered, 100*answered/c.rate, t.Throughput, t.Errors["dropped"], t.Late, report.FormatSeconds(t.Latency.P99))
	fmt.Printf("  loadctl CPU %.2fs over %.1fs wall = %.1f%% of one core (%.0f µs per request)\n",
		cpu.Seconds(), wall.Seconds(), 100*cpu.Seconds()/wall.Seconds(), 1e6*cpu.Seconds()/(c.rate*wall.Seconds()))
	return nil
}
