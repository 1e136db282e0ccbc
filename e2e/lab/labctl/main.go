// Command labctl does the waiting and checking for the lab's shell scripts.
//
//	labctl wait-webhook URL [timeout]   POST the bench body until {ok:true}
//	labctl wait-http URL [timeout]      GET until HTTP 200
//	labctl drive URL VUS SECONDS SLEEP_MS  a short closed-loop burst; prints req/s
//	labctl check-private STATE          the secret-bearing files are owner-only
//	labctl forward LISTEN TARGET        relay TCP from LISTEN to TARGET until SIGTERM
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/e2e/lab"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: labctl wait-webhook|wait-http URL [timeout]")
		os.Exit(2)
	}
	if os.Args[1] == "drive" {
		os.Exit(drive(os.Args[2:]))
	}
	if os.Args[1] == "forward" && len(os.Args) == 4 {
		os.Exit(forward(os.Args[2], os.Args[3]))
	}
	if os.Args[1] == "check-private" {
		if err := lab.CheckPrivate(os.Args[2]); err != nil {
			fmt.Fprintf(os.Stderr, "labctl: check-private: %v\n", err)
			os.Exit(1)
		}
		return
	}
	timeout := 180 * time.Second
	if len(os.Args) > 3 {
		d, err := time.ParseDuration(os.Args[3])
		if err != nil {
			fmt.Fprintf(os.Stderr, "labctl: timeout: %v\n", err)
			os.Exit(2)
		}
		timeout = d
	}
	url := os.Args[2]
	c := &http.Client{}
	var check func(context.Context) error
	switch os.Args[1] {
	case "wait-webhook":
		check = func(ctx context.Context) error { return lab.CallBench(ctx, c, url, lab.BenchBody(0, 0)) }
	case "wait-http":
		check = func(ctx context.Context) error { return lab.GetOK(ctx, c, url) }
	default:
		fmt.Fprintf(os.Stderr, "labctl: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	until := lab.Until
	if os.Args[1] == "wait-webhook" {
		until = lab.UntilAny
	}
	if err := until(context.Background(), timeout, time.Second, check); err != nil {
		fmt.Fprintf(os.Stderr, "labctl: %s: %v\n", url, err)
		os.Exit(1)
	}
}

// drive runs a short closed loop with a 3 s warm-up and prints what it saw.
func drive(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: labctl drive URL VUS SECONDS SLEEP_MS")
		return 2
	}
	n := make([]int, 3)
	for i, a := range args[1:] {
		v, err := strconv.Atoi(a)
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "labctl drive: %q is not a count\n", a)
			return 2
		}
		n[i] = v
	}
	res := lab.ClosedLoop(context.Background(), args[0], lab.BenchBody(n[2], 0), n[0], 3*time.Second, time.Duration(n[1])*time.Second)
	fmt.Printf("measured %.2f/s: %d ok, %d failed in %v with %d VUs\n", res.PerSec, res.OK, res.Failed, res.Window, n[0])
	for _, err := range res.Errors {
		fmt.Printf("  failure: %v\n", err)
	}
	if res.Failed > 0 {
		return 1
	}
	return 0
}

// forward relays listen to target until SIGTERM or an interrupt.
func forward(listen, target string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := lab.Forward(ctx, listen, target); err != nil {
		fmt.Fprintf(os.Stderr, "labctl: forward: %v\n", err)
		return 1
	}
	return 0
}
