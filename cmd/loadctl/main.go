// Command loadctl plans and measures the throughput ceiling of an n8n queue
// mode cluster. Each subcommand is a thin layer of flags over a library.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/n8n-ceiling/n8n-ceiling/pkg/redact"
)

// Exit codes shared by every subcommand.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130 // SIGINT or SIGTERM; the partial results were written
)

type command func(args []string, stdout, stderr io.Writer) int

var commands = map[string]command{
	"experiment": runExperiment,
	"plan":       runPlan,
	"sweep":      runSweep,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is loadctl. Everything it prints passes through redact.Writer, so
// no message shows a URL's password or query values, whatever carries it.
func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = redact.Writer{W: stdout}, redact.Writer{W: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "loadctl: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: loadctl <command> [flags]")
	fmt.Fprintln(w, "commands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintln(w, "run 'loadctl <command> -h' for its flags")
}
