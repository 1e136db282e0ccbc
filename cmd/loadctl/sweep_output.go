package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen/prom"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
	"golang.org/x/term"
)

// serveMetrics starts loadctl's /metrics when addr is set. Listening
// first makes a taken port a clear error before any load is sent.
func serveMetrics(ctx context.Context, addr string, sw *loadgen.Sweep) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	m := prom.New()
	sw.Observer = m
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }() // ErrServerClosed once stopped
	return func() {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // Close below ends what is left
		srv.Close()
	}, nil
}

// attachProgress prints live progress to stderr: a redrawn line on a
// terminal, plain lines elsewhere, and one line per finished step.
func attachProgress(sw *loadgen.Sweep, quiet bool, stderr io.Writer) {
	if quiet {
		return
	}
	pp := &report.ProgressPrinter{W: stderr, TTY: isTerminal(stderr), Every: 5 * time.Second}
	sw.OnProgress = pp.Update
	sw.OnStep = pp.StepDone
}

// isTerminal reports whether w, unwrapped from redaction, is a terminal
// (a character device such as /dev/null is not).
func isTerminal(w io.Writer) bool {
	if rw, ok := w.(redact.Writer); ok {
		w = rw.W
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// checkThresholds records every rule's outcome in res and reports whether
// one failed.
func checkThresholds(res *loadgen.Result, ths []loadgen.Threshold) (failed bool) {
	for _, th := range ths {
		r := th.Check(res.Total)
		res.Thresholds = append(res.Thresholds, r)
		failed = failed || !r.Passed
	}
	return failed
}

// writeOutputs prints the table and writes the requested files.
func writeOutputs(f sweepFlags, res *loadgen.Result, stdout, stderr io.Writer) int {
	if err := report.Table(stdout, res); err != nil {
		fmt.Fprintf(stderr, "loadctl sweep: %v\n", err)
		return exitError
	}
	files := []struct {
		flag, path string
		write      func(io.Writer, *loadgen.Result) error
	}{
		{"--out", f.out, loadgen.WriteJSON},
		{"--csv", f.csv, report.CSV},
		{"--report", f.report, report.HTML},
	}
	code := exitOK
	for _, o := range files {
		if o.path == "" {
			continue
		}
		if err := writeFile(o.path, func(w io.Writer) error { return o.write(w, res) }); err != nil {
			fmt.Fprintf(stderr, "loadctl sweep: %s %s: %v\n", o.flag, o.path, err)
			code = exitError
			continue
		}
		fmt.Fprintf(stderr, "loadctl sweep: wrote %s\n", o.path)
	}
	return code
}
