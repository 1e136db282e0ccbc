package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/experiment"
	"github.com/n8n-ceiling/n8n-ceiling/pkg/report"
)

type experimentFlags struct {
	spec       string
	dir        string
	out        string
	report     string
	markdown   string
	quiet      bool
	recordBody bool
	cases      string
}

func newExperimentFlagSet(f *experimentFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("experiment", stderr)
	fs.StringVar(&f.spec, "spec", "", "experiment spec (YAML or JSON), e.g. e2e/experiments/runner-limit.yaml")
	fs.StringVar(&f.dir, "dir", ".", "directory the apply hook runs in (the repository root for the lab's e2e/lab/up.sh)")
	fs.StringVar(&f.out, "out", "", "write the result as JSON (schema "+experiment.SchemaVersion+") to this file")
	fs.StringVar(&f.report, "report", "", "write a self-contained HTML report to this file")
	fs.StringVar(&f.markdown, "markdown", "", "write a Markdown summary (seed, measured, predicted) to this file")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fs.StringVar(&f.cases, "cases", "", "run only these cases of the spec, comma-separated (default: every case)")
	fs.BoolVar(&f.recordBody, "record-body", false, "keep the JSON request bodies in --out (spec target body, each sweep's settings.body); by default only their size and content type are kept")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadctl experiment --spec FILE [--out result.json] [--report report.html] [--markdown summary.md]")
		fmt.Fprintln(stderr, "       loadctl experiment [--report r.html] [--markdown summary.md] RESULT.json...   (re-report saved results)")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "A spec runs commands: its apply.command runs as the user running loadctl, so whoever can edit")
		fmt.Fprintln(stderr, "a spec can run anything as you. Run only specs you trust. The command's output is redacted")
		fmt.Fprintln(stderr, "(values of its secret-looking env variables, URL passwords and query values) before it")
		fmt.Fprintln(stderr, "reaches the terminal, logs and reports.")
		fmt.Fprintln(stderr, "exit codes: 0 all checks passed, 99 a check failed, 1 a case could not run, 2 bad usage or spec,")
		fmt.Fprintln(stderr, "130 interrupted (the cases so far are written)")
	}
	return fs
}

func runExperiment(args []string, stdout, stderr io.Writer) int {
	var f experimentFlags
	fs := newExperimentFlagSet(&f, stderr)
	if code, ok := parseArgs(fs, args, true, stderr); !ok {
		return code
	}
	if (f.spec == "") == (fs.NArg() == 0) {
		fmt.Fprintln(stderr, "loadctl experiment: give --spec to run, or saved result files to re-report (not both)")
		return exitUsage
	}
	if f.spec == "" {
		return reReportExperiments(f, fs.Args(), stdout, stderr)
	}
	spec, err := experiment.LoadFile(f.spec)
	if err == nil && f.cases != "" {
		err = spec.OnlyCases(strings.Split(f.cases, ","))
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadctl experiment: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(line string) {
		if !f.quiet {
			fmt.Fprintf(stderr, "experiment %s: %s\n", spec.Name, line)
		}
	}
	r := &experiment.Runner{Spec: spec, Apply: experiment.NewApplier(spec.Apply, f.dir, logf), Log: logf,
		ProgressLine: report.ProgressLine, RecordBody: f.recordBody}
	res := r.Run(ctx)
	return experimentOutputs(f, []*experiment.Result{res}, ctx.Err() != nil, stdout, stderr)
}

// reReportExperiments renders saved results: the table for each, HTML for
// one, Markdown for all together.
func reReportExperiments(f experimentFlags, files []string, stdout, stderr io.Writer) int {
	if f.out != "" {
		fmt.Fprintln(stderr, "loadctl experiment: --out needs --spec (saved results are already JSON)")
		return exitUsage
	}
	var results []*experiment.Result
	for _, name := range files {
		res, err := readSaved(name, experiment.ReadJSON)
		if err != nil {
			fmt.Fprintf(stderr, "loadctl experiment: %v\n", err)
			return exitUsage
		}
		results = append(results, res)
	}
	if f.report != "" && len(results) != 1 {
		fmt.Fprintln(stderr, "loadctl experiment: --report renders one result; give one file")
		return exitUsage
	}
	return experimentOutputs(f, results, false, stdout, stderr)
}

// experimentOutputs writes the table and the files asked for, then picks
// the exit code: 1 when a write failed or a case could not run, 130 when
// a signal interrupted the run, 99 when a check failed.
func experimentOutputs(f experimentFlags, results []*experiment.Result, interrupted bool, stdout, stderr io.Writer) int {
	for _, res := range results {
		if err := report.ExperimentTable(stdout, res); err != nil {
			fmt.Fprintf(stderr, "loadctl experiment: %v\n", err)
			return exitError
		}
	}
	writers := []struct {
		path  string
		write func(io.Writer) error
	}{
		{f.out, func(w io.Writer) error { return experiment.WriteJSON(w, results[0]) }},
		{f.report, func(w io.Writer) error { return report.ExperimentHTML(w, results[0]) }},
		{f.markdown, func(w io.Writer) error { return report.ExperimentMarkdown(w, results) }},
	}
	for _, wr := range writers {
		if wr.path == "" {
			continue
		}
		if err := writeFile(wr.path, wr.write); err != nil {
			fmt.Fprintf(stderr, "loadctl experiment: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stderr, "loadctl experiment: wrote %s\n", wr.path)
	}
	if interrupted {
		fmt.Fprintln(stderr, "loadctl experiment: interrupted; the cases so far are in the outputs")
		return exitInterrupted
	}
	return experimentExit(results)
}

func experimentExit(results []*experiment.Result) int {
	code := exitOK
	for _, res := range results {
		if len(res.Cases) < len(res.Spec.Cases) {
			return exitError // a saved run that was cut short
		}
		for _, c := range res.Cases {
			switch {
			case c.Error != "":
				return exitError
			case !c.Passed:
				code = exitThreshold
			}
		}
	}
	return code
}
