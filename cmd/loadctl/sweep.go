package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/comparison"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/loadgen"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/snapshot"
)

// exitThreshold is the exit code when a --threshold fails.
const exitThreshold = 99

const defaultBody = `{"sleep_ms":1000,"alloc_mb":0}`

type sweepFlags struct {
	urls          stringList
	method        string
	body          string
	sets          stringList
	upload        string
	uploadMode    string
	headers       stringList
	timeout       time.Duration
	expectStatus  intList
	checks        stringList
	vus           intList
	rates         rateList
	step          time.Duration
	warmup        time.Duration
	maxInFlight   int
	lateAfter     time.Duration
	stopAtKnee    bool
	exporter      string
	out           string
	csv           string
	report        string
	thresholds    stringList
	metricsListen string
	quiet         bool
	from          string
	recordBody    bool
}

func newSweepFlagSet(f *sweepFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("sweep", stderr)
	fs.Var(&f.urls, "url", "webhook URL; repeat to rotate over several round-robin")
	fs.StringVar(&f.method, "method", "POST", "HTTP method")
	fs.StringVar(&f.body, "body", defaultBody, "JSON body template")
	fs.Var(&f.sets, "set", "key=value to set in the body (repeatable); JSON literals keep their type: sleep_ms=3000")
	fs.StringVar(&f.upload, "upload", "", "send this many bytes instead of the JSON body, e.g. 2MiB")
	fs.StringVar(&f.uploadMode, "upload-mode", "raw", "with --upload: raw (octet-stream) or multipart (a file part plus the body's fields)")
	fs.Var(&f.headers, "header", "'Name: value' request header (repeatable); values never reach reports")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "per-request timeout")
	f.expectStatus = intList{200}
	fs.Var(&f.expectStatus, "expect-status", "accepted HTTP statuses, comma list")
	fs.Var(&f.checks, "check", "JSON field check on the response, e.g. ok==true (repeatable)")
	fs.Var(&f.vus, "vus", "closed loop: VU steps, comma list, e.g. 5,10,20")
	fs.Var(&f.rates, "rate", "open loop: arrival-rate steps, e.g. 2,4,8/s")
	fs.DurationVar(&f.step, "step", 30*time.Second, "measured duration of each step")
	fs.DurationVar(&f.warmup, "warmup", 0, "unmeasured lead-in of each step")
	fs.IntVar(&f.maxInFlight, "max-in-flight", 1000, "open loop: most requests in flight; later starts are dropped and counted")
	fs.DurationVar(&f.lateAfter, "late-after", loadgen.DefaultLate, "open loop: a start this late counts as late")
	fs.BoolVar(&f.stopAtKnee, "stop-at-knee", false, "end the sweep once a step adds less than 5% throughput")
	fs.StringVar(&f.exporter, "exporter", "", "n8n-ceiling exporter /metrics URL, to compare each step with the model")
	fs.StringVar(&f.out, "out", "", "write the result as JSON (schema "+loadgen.SchemaVersion+") to this file")
	fs.StringVar(&f.csv, "csv", "", "write one CSV row per step to this file")
	fs.StringVar(&f.report, "report", "", "write a self-contained HTML report to this file")
	fs.Var(&f.thresholds, "threshold", "pass/fail rule over the run, e.g. 'fail_rate<0.05' or 'p95<60s' (repeatable); exit 99 on failure")
	fs.StringVar(&f.metricsListen, "metrics-listen", "127.0.0.1:9811", "serve loadctl_ metrics here during the sweep; empty disables")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress")
	fs.StringVar(&f.from, "from", "", "send no load: re-report a saved --out result (table, --csv, --report, --threshold)")
	fs.BoolVar(&f.recordBody, "record-body", false, "keep the JSON request body in --out (settings.body); by default only its size and content type are kept")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadctl sweep --url URL (--vus N,… | --rate R,…/s) [flags]")
		fmt.Fprintln(stderr, "       loadctl sweep --from result.json [--csv …] [--report …] [--threshold …]   (re-report, no load)")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "URL passwords and query values are shown as xxxxx in everything loadctl prints or writes.")
		fmt.Fprintln(stderr, "exit codes: 0 ok, 99 a threshold failed, 1 an error (e.g. an unwritable output), 2 bad usage, 130 interrupted (partial results written)")
	}
	return fs
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	var f sweepFlags
	fs := newSweepFlagSet(&f, stderr)
	if code, ok := parseArgs(fs, args, false, stderr); !ok {
		return code
	}
	if f.from != "" {
		return reReport(f, stdout, stderr)
	}
	sw, thresholds, err := buildSweep(f)
	if err != nil {
		fmt.Fprintf(stderr, "loadctl sweep: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopMetrics, err := serveMetrics(ctx, f.metricsListen, sw)
	if err != nil {
		fmt.Fprintf(stderr, "loadctl sweep: --metrics-listen %s: %v\n", f.metricsListen, err)
		return exitError
	}
	defer stopMetrics()
	attachProgress(sw, f.quiet, stderr)
	fmt.Fprintf(stderr, "loadctl sweep: %s against %s\n", sw.Plan, strings.Join(redact.URLs(f.urls), ", "))
	res, err := sw.Run(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "loadctl sweep: %v\n", err)
		return exitUsage
	}
	return finish(f, res, thresholds, ctx.Err() != nil, stdout, stderr)
}

// finish checks thresholds, writes the outputs and picks the exit code:
// a failed write first, then an interruption (by a signal), then a
// failed threshold.
func finish(f sweepFlags, res *loadgen.Result, thresholds []loadgen.Threshold, interrupted bool, stdout, stderr io.Writer) int {
	failed := checkThresholds(res, thresholds)
	if code := writeOutputs(f, res, stdout, stderr); code != exitOK {
		return code
	}
	switch {
	case interrupted:
		fmt.Fprintln(stderr, "loadctl sweep: interrupted; the steps so far are in the outputs")
		return exitInterrupted
	case failed:
		return exitThreshold
	}
	return exitOK
}

// reReport renders a saved result; its recorded thresholds are replaced by
// the ones given now.
func reReport(f sweepFlags, stdout, stderr io.Writer) int {
	var ths []loadgen.Threshold
	for _, expr := range f.thresholds {
		th, err := loadgen.ParseThreshold(expr)
		if err != nil {
			fmt.Fprintf(stderr, "loadctl sweep: --threshold: %v\n", err)
			return exitUsage
		}
		ths = append(ths, th)
	}
	res, err := readSaved(f.from, loadgen.ReadJSON)
	if err != nil {
		fmt.Fprintf(stderr, "loadctl sweep: --from: %v\n", err)
		return exitUsage
	}
	if f.out == f.from {
		f.out = "" // never overwrite the input
	}
	res.Thresholds = []loadgen.ThresholdResult{}
	return finish(f, res, ths, false, stdout, stderr)
}

// buildSweep turns flags into a sweep; every error names its flag.
func buildSweep(f sweepFlags) (*loadgen.Sweep, []loadgen.Threshold, error) {
	plan, err := sweepPlan(f)
	if err != nil {
		return nil, nil, err
	}
	target, err := buildTarget(f, plan)
	if err != nil {
		return nil, nil, err
	}
	var ths []loadgen.Threshold
	for _, expr := range f.thresholds {
		th, err := loadgen.ParseThreshold(expr)
		if err != nil {
			return nil, nil, fmt.Errorf("--threshold: %w", err)
		}
		ths = append(ths, th)
	}
	sw := &loadgen.Sweep{Plan: plan, Target: target, RecordBody: f.recordBody}
	if f.exporter != "" {
		if err := checkURL(f.exporter); err != nil {
			return nil, nil, fmt.Errorf("--exporter: %w", err)
		}
		sw.Hook = &comparison.Hook{Reader: &snapshot.Reader{URL: f.exporter}}
	}
	return sw, ths, nil
}

func sweepPlan(f sweepFlags) (loadgen.Plan, error) {
	p := loadgen.Plan{Step: f.step, Warmup: f.warmup, MaxInFlight: f.maxInFlight, LateAfter: f.lateAfter, StopAtKnee: f.stopAtKnee}
	switch {
	case len(f.vus) > 0 && len(f.rates) > 0:
		return p, errors.New("--vus and --rate: give one, not both")
	case len(f.vus) > 0:
		p.Model, p.Steps = loadgen.Closed, loadgen.ClosedSteps(f.vus)
	case len(f.rates) > 0:
		p.Model, p.Steps = loadgen.Open, loadgen.OpenSteps(f.rates)
	default:
		return p, errors.New("--vus (closed loop) or --rate (open loop) is required")
	}
	if f.step <= 0 {
		return p, fmt.Errorf("--step %v: must be positive", f.step)
	}
	if f.warmup < 0 {
		return p, fmt.Errorf("--warmup %v: must not be negative", f.warmup)
	}
	if f.maxInFlight < 0 {
		return p, fmt.Errorf("--max-in-flight %d: must not be negative", f.maxInFlight)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("--vus/--rate/--step/--max-in-flight: %w", err)
	}
	return p, nil
}
