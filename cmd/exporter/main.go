// Command exporter discovers n8n's workers and task runners in Docker and
// publishes each worker's real concurrency limit, the throughput ceiling,
// container memory and Bull queue depth on /metrics, with the verdict in
// words on /. With EXPORTER_DISCOVERY=false it is a probe-only sidecar that
// serves the broker probes' metrics. Configuration: see config.go or -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Environ(), os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "exporter: configuration:", err)
		os.Exit(2)
	}
	if cfg.showVersion {
		fmt.Println(versionText())
		return
	}
	os.Exit(serveUntilSignal(cfg))
}

// serveUntilSignal runs the exporter until SIGINT or SIGTERM and returns
// the exit code.
func serveUntilSignal(cfg Config) int {
	logger := cfg.newLogger(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, logger, nil); err != nil {
		logger.Error("exporter stopped", "err", err)
		return 1
	}
	return 0
}
